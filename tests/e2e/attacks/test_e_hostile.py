"""Class E of issue 21: a hostile file never crashes axon.

Each loader gets its own untrusted folder (one broken file must not hide another) and one
``axon run``: no Python traceback, an exit code axon documents (0 answered, 1 error, 2 usage), and
on 0 the run's own effect (the model's answer printed); on 1 or 2, stderr names the bad file.

Attacks (loader x hostile bytes):
  e_config_bytes / e_config_deep            .axon/config.toml: not UTF-8 / 50,000-deep array
  e_permissions_bytes / e_permissions_deep  .axon/permissions.toml
  e_mcp_bytes / e_mcp_deep                  .mcp.json
  e_user_config_deep, e_user_perms_bytes    the user's config.toml / permissions.toml
  e_agents_md_bytes                         AGENTS.md not UTF-8
  e_trust_store_deep                        ~/.local/state/axon/trust.json 50,000 deep
  e_transcript_deep / e_transcript_bytes    a shipped .axon/sessions/*.jsonl, then ``--continue``
  e_command_bytes                           .axon/commands/x.md not UTF-8, ``--command x``
  e_agent_deep                              .axon/agents/x.md front matter 50,000 deep
  e_skill_bytes                             .axon/skills/x/SKILL.md not UTF-8
  e_claude_settings_deep, e_claude_local_bytes  .claude/settings.json 50,000 deep, settings.local.json not UTF-8
  e_user_claude_settings_deep               ~/.claude/settings.json 50,000 deep
and file names that are not UTF-8 (a file ``\\xff\\xfe-….txt``):
  e_name_listing     list_files + search_files over it; the run's other edit stays; then --continue
  e_name_undo        the model creates such a file and edits a.txt; ``axon undo`` restores a.txt
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.attacks.lab import Lab, crashed
from tests.fakeserver import text_reply, tool_reply

DEEP = 50_000
DEEP_TOML = b"x = " + b"[" * DEEP + b"]" * DEEP + b"\n"
DEEP_JSON = b"[" * DEEP + b"]" * DEEP
BAD = b"\xff\xfe\xc3\x28 not utf-8 \x80\n"
TRANSCRIPT = ".axon/sessions/20260101-000000-abcdef.jsonl"
STATE = "~/.local/state/axon/trust.json"

HOSTILE = {
    "e_config_bytes": (".axon/config.toml", b'model = "' + BAD.strip() + b'"\n', ("hi",)),
    "e_config_deep": (".axon/config.toml", DEEP_TOML, ("hi",)),
    "e_permissions_bytes": (".axon/permissions.toml", b'allow = ["' + BAD.strip() + b'"]\n', ("hi",)),
    "e_permissions_deep": (".axon/permissions.toml", b"allow = " + b"[" * DEEP + b"]" * DEEP + b"\n", ("hi",)),
    "e_mcp_bytes": (".mcp.json", b'{"mcpServers": {"x": {"command": "' + BAD.strip() + b'"}}}', ("hi",)),
    "e_mcp_deep": (".mcp.json", b'{"mcpServers": {"x": {"command": "true", "args": ' + DEEP_JSON + b"}}}", ("hi",)),
    "e_user_config_deep": ("~/.config/axon/config.toml", DEEP_TOML, ("hi",)),
    "e_user_perms_bytes": ("~/.config/axon/permissions.toml", b'deny = ["' + BAD.strip() + b'"]\n', ("hi",)),
    "e_agents_md_bytes": ("AGENTS.md", b"# Rules\n" + BAD * 20, ("hi",)),
    "e_trust_store_deep": (STATE, b'{"folders": ' + DEEP_JSON + b"}", ("hi",)),
    "e_transcript_deep": (TRANSCRIPT, b'{"role": "user", "content": ' + DEEP_JSON + b"}\n", ("--continue", "hi")),
    "e_transcript_bytes": (TRANSCRIPT, b'{"role": "user", "content": "hi"}\n' + BAD, ("--continue", "hi")),
    "e_command_bytes": (".axon/commands/x.md", b"---\ndescription: " + BAD + b"---\nDo " + BAD, ("--command", "x", "hi")),
    "e_agent_deep": (".axon/agents/x.md", b"---\ndescription: d\ntools: " + b"[" * DEEP + b"]" * DEEP + b"\n---\nhi\n",
                     ("hi",)),
    "e_skill_bytes": (".axon/skills/x/SKILL.md", b"---\nname: x\ndescription: " + BAD + b"---\n" + BAD, ("hi",)),
    "e_claude_settings_deep": (".claude/settings.json", b'{"hooks": ' + DEEP_JSON + b"}", ("hi",)),
    "e_claude_local_bytes": (".claude/settings.local.json", b'{"hooks": "' + BAD.strip() + b'"}', ("hi",)),
    "e_user_claude_settings_deep": ("~/.claude/settings.json", b'{"hooks": ' + DEEP_JSON + b"}", ("hi",)),
}


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    lab = Lab(tmp_path)
    (lab.project / ".git").mkdir()              # the project root, like the other end-to-end tests
    yield lab
    lab.close()


@pytest.mark.parametrize("eid", list(HOSTILE))
def test_a_hostile_file_never_crashes_axon(eid: str, lab: Lab) -> None:
    rel, data, args = HOSTILE[eid]
    lab.write(rel[2:], data, root=lab.home) if rel.startswith("~/") else lab.write(rel, data)
    lab.script(text_reply("fine"), text_reply("fine"))
    ran = lab.axon("run", *args, timeout=120)
    assert not crashed(ran), f"exit {ran.code}: {ran.stderr[-2500:]}"
    if ran.code == 0:
        assert ran.stdout.strip() == "fine"
    else:
        assert Path(rel).name in ran.stderr, f"exit {ran.code} without naming {rel}: {ran.stderr[-800:]}"


NAME = os.fsdecode(b"\xff\xfe-latin1-\xe9t\xe9.txt")


def test_a_file_name_that_is_not_utf8_is_listed_searched_and_transcribed(lab: Lab) -> None:
    server, run_axon, project = lab.server, lab.axon, lab.project
    (project / NAME).write_bytes(b"needle in a badly named file\n")
    server.add(tool_reply(("write_file", {"path": "ok.txt", "content": "kept\n"})),
               tool_reply(("list_files", {}), ("search_files", {"pattern": "needle"}), call_ids=["list", "search"]),
               text_reply("listed"), text_reply("continued"))
    ran = run_axon("run", "list everything", "--yes")
    assert not crashed(ran) and ran.code == 0, ran.stderr[-2500:]
    assert (project / "ok.txt").read_text() == "kept\n"
    results = lab.results()
    assert "latin1" in results["list"] and "latin1" in results["search"], results
    again = run_axon("run", "--continue", "and now?")
    assert not crashed(again) and again.code == 0 and again.stdout.strip() == "continued", again.stderr[-2500:]


def test_undo_of_a_file_name_that_is_not_utf8(lab: Lab) -> None:
    server, run_axon, project = lab.server, lab.axon, lab.project
    (project / "a.txt").write_text("one\n")
    lab.commit_all()
    command = "printf new > $'\\xff\\xfe-latin1-\\xe9t\\xe9.txt'; echo two > a.txt"
    server.add(tool_reply(("bash", {"command": command})), text_reply("done"))
    ran = run_axon("run", "make files", "--yes", "--sandbox", "off")
    assert not crashed(ran) and ran.code == 0 and (project / NAME).exists(), ran.stderr[-2500:]
    listed = run_axon("undo", "--list")
    assert not crashed(listed) and listed.code == 0, listed.stderr[-2500:]
    undo = run_axon("undo")
    assert not crashed(undo) and undo.code == 0, undo.stderr[-2500:]
    assert (project / "a.txt").read_text() == "one\n" and not (project / NAME).exists()
