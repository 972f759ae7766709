"""Class C of issue 32 (structured text): every JSON a project, a server or the model supplies is parsed
through the one bounded loader (``axon_cli/kernel/loaders.py``: size, UTF-8, nesting). Planted for real, one
``axon run`` each: no traceback, the exit code the README documents, and the effect: an optional file
that cannot be used is one line naming it while axon goes on (a broken ``.claude/settings.json``: its
hooks are left out, the other file's hooks still run); a model's tool call nested 50,000 deep or a
hook's reply nested 4,000 deep reaches the model as an error and the turn ends normally.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.attacks.lab import Lab, crashed
from tests.fakeserver import text_reply, tool_reply

DEEP = 50_000
DEEP_JSON = "[" * DEEP + "]" * DEEP
TRUSTED = {"AXON_TRUST": "1"}


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    lab = Lab(tmp_path)
    (lab.project / ".git").mkdir()
    yield lab
    lab.close()


def marker_hook(name: str) -> str:
    """A Claude Code settings file whose UserPromptSubmit hook creates ``name`` in the project."""
    return ('{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch ' + name + '"}]}]}}')


BROKEN_SETTINGS = {
    "deep": ('{"hooks": ' + DEEP_JSON + "}").encode(),
    "shallow_but_2000": ('{"hooks": ' + "[" * 2000 + "]" * 2000 + "}").encode(),   # the 6 KB file
    "not_utf8": b'{"hooks": {"UserPromptSubmit": "\xff\xfe\xc3\x28"}}',
    "huge": b'{"padding": "' + b"a" * (5 * 1024 * 1024) + b'"}',
}


@pytest.mark.parametrize("kind", list(BROKEN_SETTINGS))
def test_a_broken_claude_settings_file_is_one_line_and_the_rest_runs(kind: str, lab: Lab) -> None:
    lab.write(".claude/settings.json", BROKEN_SETTINGS[kind])
    lab.write(".claude/settings.local.json", marker_hook("local-hook-ran"))
    lab.script(text_reply("fine"))
    ran = lab.axon("run", "hi", env=TRUSTED, timeout=120)
    assert not crashed(ran) and ran.code == 0, f"exit {ran.code}: {ran.stderr[-2500:]}"
    assert ran.stdout.strip() == "fine"
    assert (lab.project / "local-hook-ran").exists()                   # the other file's hook ran
    assert len([ln for ln in ran.stderr.splitlines() if "settings.json" in ln]) == 1, ran.stderr[-2500:]


def test_the_users_own_broken_claude_settings_is_one_line_naming_it(lab: Lab) -> None:
    lab.write(".claude/settings.json", BROKEN_SETTINGS["deep"], root=lab.home)
    lab.script(text_reply("fine"))
    ran = lab.axon("run", "hi", timeout=120)
    assert not crashed(ran), ran.stderr[-2500:]
    assert ran.code == 1 and "settings.json" in ran.stderr and lab.server.requests == []


@pytest.mark.parametrize("protocol", ["native", "text"])
def test_a_tool_call_nested_50000_deep_is_an_error_for_the_model(protocol: str, lab: Lab) -> None:
    (lab.project / "a.txt").write_text("alpha\n")
    if protocol == "native":
        call = tool_reply(("read_file", '{"path": "a.txt", "x": ' + DEEP_JSON + "}"))
    else:
        lab.write(".axon/config.toml", 'tool_protocol = "text"\n')
        call = text_reply('```json\n{"name": "read_file", "arguments": {"path": "a.txt", "x": ' + DEEP_JSON
                          + "}}\n```")
    lab.script(call, text_reply("fine"), text_reply("fine"))
    ran = lab.axon("run", "read a.txt", env=TRUSTED, timeout=120)
    assert not crashed(ran) and ran.code == 0, f"exit {ran.code}: {ran.stderr[-2500:]}"
    assert ran.stdout.strip().endswith("fine")
    sent = str(lab.server.requests[1].messages[-1])
    assert "alpha" not in sent                                          # nothing was run with such arguments


def test_a_hook_reply_nested_4000_deep_is_a_hook_problem_not_a_crash(lab: Lab) -> None:
    (lab.project / "a.txt").write_text("alpha\n")
    deep = "[" * 4000 + "]" * 4000                       # within the 10,000 bytes a hook's output is read
    reply = lab.write("reply.json", '{"hookSpecificOutput": ' + deep + "}")
    lab.write(".claude/settings.json", '{"hooks": {"PreToolUse": [{"matcher": "read_file", "hooks": '
              '[{"type": "command", "command": "touch hook-ran; cat ' + str(reply) + '"}]}]}}')
    lab.script(tool_reply(("read_file", {"path": "a.txt"})), text_reply("fine"))
    ran = lab.axon("run", "read a.txt", env=TRUSTED, timeout=120)
    assert not crashed(ran) and ran.code == 0, f"exit {ran.code}: {ran.stderr[-2500:]}"
    assert ran.stdout.strip() == "fine" and len(lab.server.requests) == 2
    assert (lab.project / "hook-ran").exists()                          # the hook ran and replied


def test_a_constrained_reply_nested_50000_deep_is_no_call_and_no_crash(lab: Lab) -> None:
    (lab.project / "big.py").write_text("x = 1\n" * 3000)          # too large to attach: the reply is constrained
    lab.script(text_reply('{"name": "read_file", "arguments": ' + DEEP_JSON + "}"), text_reply("fine"),
               text_reply("fine"), text_reply("fine"))
    ran = lab.axon("run", "what does big.py do?", env=TRUSTED, timeout=120)
    assert not crashed(ran) and ran.code == 0, f"exit {ran.code}: {ran.stderr[-2500:]}"
    assert "response_format" in lab.server.requests[0].body              # the attack reached the constrained path
    assert ran.stdout.strip().endswith("fine")
