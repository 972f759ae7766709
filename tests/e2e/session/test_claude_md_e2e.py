"""End-to-end: Claude Code's instruction files in the real ``axon run`` against the scripted server,
with ``CLAUDE.md``/``AGENTS.md`` pairs laid out as in public repositories (``tests/fixtures/instructions``):
a repository with only ``CLAUDE.md`` gives the model its text, a text linked twice (symlink,
``@AGENTS.md`` import, identical copy) reaches it once, ``@path`` imports never bring in a sensitive
or outside file, and a nested instruction file arrives with the first read in its directory, once."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "instructions"


def first_context(server) -> str:  # type: ignore[no-untyped-def]
    first_user = next(m for m in server.requests[0].messages if m["role"] == "user")
    return first_user["content"]


def copy_fixture(name: str, project: Path) -> None:
    for path in (FIXTURES / name).iterdir():
        target = project / path.name
        if path.is_symlink():
            target.symlink_to(path.readlink())
        else:
            shutil.copy2(path, target)


def test_a_repository_with_only_claude_md_gives_the_model_its_text(server, run_axon, project):
    (project / "CLAUDE.md").write_text("# Rules\nAlways run `make lint-quietly` before finishing.\n")
    (project / "CLAUDE.local.md").write_text("My sandbox URL is http://sandbox-7.local\n")
    server.add(text_reply("ok"))
    assert run_axon("run", "hello").code == 0
    context = first_context(server)
    assert context.count("make lint-quietly") == 1 and context.count("sandbox-7.local") == 1
    assert "### CLAUDE.md" in context and "### CLAUDE.local.md" in context


def test_agents_md_symlinked_to_claude_md_reaches_the_model_once(server, run_axon, project):
    copy_fixture("agents-symlink", project)        # AGENTS.md -> CLAUDE.md, as real repositories keep it
    assert (project / "AGENTS.md").is_symlink()
    server.add(text_reply("ok"))
    assert run_axon("run", "hello").code == 0
    context = first_context(server)
    assert context.count("# Quillmark — Contributor Guidelines") == 1
    assert context.count("## Pull Request Checklist") == 1


def test_claude_md_importing_agents_md_reaches_the_model_once(server, run_axon, project):
    copy_fixture("claude-imports-agents", project)  # CLAUDE.md: a note, then @AGENTS.md
    server.add(text_reply("ok"))
    assert run_axon("run", "hello").code == 0
    context = first_context(server)
    assert context.count("Ledgerline is a Go library") == 1
    assert context.count("## Where Instructions Live") == 1     # CLAUDE.md's own text is kept


def test_an_identical_copy_and_an_import_only_file_add_nothing(server, run_axon, project):
    (project / "AGENTS.md").write_text("Use tabs-not-spaces-42 everywhere.\n")
    (project / "CLAUDE.md").write_text("Use tabs-not-spaces-42 everywhere.\n")
    (project / ".claude").mkdir()
    (project / ".claude" / "CLAUDE.md").write_text("@../AGENTS.md\n")
    server.add(text_reply("ok"))
    assert run_axon("run", "hello").code == 0
    context = first_context(server)
    assert context.count("tabs-not-spaces-42") == 1
    assert "### CLAUDE.md" not in context and "### .claude/CLAUDE.md" not in context


def test_imports_follow_project_and_home_markdown_but_never_secrets_or_outside(server, run_axon, project):
    home = project.parent / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("SSH-KEY-CANARY-1\n")
    (home / "notes.md").write_text("HOME-NOTES-IMPORTED\n")
    (home / "history.txt").write_text("HOME-TXT-CANARY-2\n")
    (project.parent / "outside.md").write_text("OUTSIDE-CANARY-3\n")
    (project / ".env").write_text("ENV-CANARY-4\n")
    (project / "docs").mkdir()
    (project / "docs" / "style.md").write_text("STYLE-IMPORTED see @deeper.md\n")
    (project / "docs" / "deeper.md").write_text("DEEPER-IMPORTED\n")
    (project / "CLAUDE.md").write_text(
        "Project rules. See @docs/style.md and @~/notes.md.\n"
        "Also @~/.ssh/id_rsa @~/history.txt @../outside.md @.env\n"
        "```\n@docs/fenced.md\n```\nMail me at someone@example.com; `@docs/spanned.md`\n")
    (project / "docs" / "fenced.md").write_text("FENCED-CANARY-5\n")
    (project / "docs" / "spanned.md").write_text("SPANNED-CANARY-6\n")
    server.add(text_reply("ok"))
    assert run_axon("run", "hello").code == 0
    sent = json.dumps([r.body for r in server.requests])
    for imported in ("STYLE-IMPORTED", "DEEPER-IMPORTED", "HOME-NOTES-IMPORTED"):
        assert sent.count(imported) == 1, imported
    for n, canary in enumerate(("SSH-KEY-CANARY", "HOME-TXT-CANARY", "OUTSIDE-CANARY", "ENV-CANARY",
                                "FENCED-CANARY", "SPANNED-CANARY"), start=1):
        assert f"{canary}-{n}" not in sent, canary


def test_imports_stop_after_five_hops_and_a_cycle_ends(server, run_axon, project):
    for n in range(8):
        (project / f"i{n}.md").write_text(f"HOP-{n}-TEXT @i{n + 1}.md @CLAUDE.md\n")
    (project / "CLAUDE.md").write_text("start @i0.md\n")
    server.add(text_reply("ok"))
    assert run_axon("run", "hello").code == 0
    context = first_context(server)
    assert [context.count(f"HOP-{n}-TEXT") for n in range(8)] == [1, 1, 1, 1, 1, 0, 0, 0]


def test_a_nested_instruction_file_arrives_with_the_first_read_in_its_directory_once(server, run_axon, project):
    api = project / "src" / "api"
    api.mkdir(parents=True)
    (project / "AGENTS.md").write_text("ROOT-RULES\n")
    (project / "src" / "CLAUDE.md").write_text("SRC-RULES-CLAUDE\n")
    (api / "AGENTS.md").write_text("API-RULES: validate every input\n")
    (api / "handler.py").write_text("def handle(): pass\n")
    (api / "models.py").write_text("class M: pass\n")
    (project / "README.md").write_text("readme\n")
    reads = [tool_reply(("read_file", {"path": p})) for p in
             ("README.md", "src/api/handler.py", "src/api/handler.py", "src/api/models.py")]
    server.add(*reads, text_reply("done"))
    ran = run_axon("run", "look at the api")
    assert ran.code == 0, ran.stderr
    first = first_context(server)
    assert "ROOT-RULES" in first and "API-RULES" not in first and "SRC-RULES-CLAUDE" not in first
    results = [m["content"] for m in server.requests[-1].messages if m["role"] == "tool"]
    assert "API-RULES" not in results[0] and "SRC-RULES" not in results[0]     # README.md: at the root
    assert "API-RULES: validate every input" in results[1] and "SRC-RULES-CLAUDE" in results[1]
    assert "def handle" in results[1]
    assert all("API-RULES" not in r and "SRC-RULES" not in r for r in results[2:])
    assert json.dumps(server.requests[-1].messages).count("API-RULES") == 1


def test_instruction_files_below_cwd_are_not_read_at_start_but_above_are(server, run_axon, project):
    sub = project / "pkg"
    sub.mkdir()
    (project / "CLAUDE.md").write_text("TOP-LEVEL-CLAUDE\n")
    (sub / "CLAUDE.md").write_text("PKG-LEVEL-CLAUDE\n")
    (sub / "deep").mkdir()
    (sub / "deep" / "AGENTS.md").write_text("DEEP-LEVEL\n")
    server.add(text_reply("ok"))
    assert run_axon("run", "hello", cwd=sub).code == 0
    context = first_context(server)
    assert "TOP-LEVEL-CLAUDE" in context and "PKG-LEVEL-CLAUDE" in context and "DEEP-LEVEL" not in context


def test_an_instruction_file_symlinked_to_a_secret_or_outside_is_not_sent(server, run_axon, project):
    home = project.parent / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text("AWS-CANARY-1\n")
    (project.parent / "outside.txt").write_text("OUTSIDE-CANARY-2\n")
    (project / "AGENTS.md").symlink_to(home / ".aws" / "credentials")
    (project / "CLAUDE.md").symlink_to(project.parent / "outside.txt")
    (project / "sub").mkdir()
    (project / "sub" / "AGENTS.md").symlink_to(home / ".aws" / "credentials")
    (project / "sub" / "code.py").write_text("x = 1\n")
    server.add(tool_reply(("read_file", {"path": "sub/code.py"})), text_reply("ok"))
    assert run_axon("run", "hello").code == 0
    sent = json.dumps([r.body for r in server.requests])
    assert "x = 1" in sent
    assert "AWS-CANARY-1" not in sent and "OUTSIDE-CANARY-2" not in sent


def test_the_users_own_instruction_files_reach_every_project_once(server, run_axon, project):
    home = project.parent / "home"
    (home / ".claude").mkdir(parents=True, exist_ok=True)
    (home / ".claude" / "CLAUDE.md").write_text("USER-CLAUDE-RULE: answer in British English\n")
    (home / ".codex").mkdir(exist_ok=True)
    (home / ".codex" / "AGENTS.md").write_text("USER-CODEX-RULE: prefer pathlib\n")
    (home / ".config" / "axon").mkdir(parents=True, exist_ok=True)
    (home / ".config" / "axon" / "AGENTS.md").write_text("USER-CODEX-RULE: prefer pathlib\n")   # the same text
    (project / "AGENTS.md").write_text("PROJECT-RULE: tabs\n")
    server.add(text_reply("ok"))
    assert run_axon("run", "hello").code == 0
    context = first_context(server)
    for marker in ("USER-CLAUDE-RULE", "USER-CODEX-RULE", "PROJECT-RULE"):
        assert context.count(marker) == 1, marker
    assert context.index("USER-CLAUDE-RULE") < context.index("PROJECT-RULE")    # the user's first, the project's last
