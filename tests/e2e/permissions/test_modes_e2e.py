"""The mode ladder end to end, through the real ``axon`` with the sandbox on: ``default`` stops every
destructive form (headless: denied, the file intact, the line naming what would permit it),
``auto`` runs them and ``axon undo`` restores every file's content and mode; non-destructive
scripts and builds still run unasked in ``default``; in chat, ``rm`` asks and ``n`` keeps the file."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

# command → the file it would destroy (each command has a file of its own)
DESTRUCTIVE = {
    "rm f01.txt": "f01.txt", "rm -f f02.txt": "f02.txt", "unlink f03.txt": "f03.txt", "shred -u f04.txt": "f04.txt",
    "truncate -s 0 f05.txt": "f05.txt", "echo gone > f06.txt": "f06.txt", "echo gone >| f07.txt": "f07.txt",
    "mv -f src1.txt f08.txt": "f08.txt", "cp src2.txt f09.txt": "f09.txt", "ln -sf /dev/null f10.txt": "f10.txt",
    "chmod 000 f11.txt": "f11.txt", "chmod -R 000 d12": "d12/inner.txt", "find d13 -type f -delete": "d13/x.txt",
    "echo hi; rm f14.txt": "f14.txt", "tee f15.txt < src3.txt": "f15.txt", "rm -rf d16": "d16/deep/y.txt",
    "dd if=/dev/zero of=f17.txt bs=4 count=1": "f17.txt",
}
# these write .git (its index, refs), which is read-only in the sandbox: even `auto` asks before them
GIT_ONLY = {"git checkout -- tracked.txt": "tracked.txt", "git restore tracked2.txt": "tracked2.txt",
            "git clean -fd": "untracked.txt", "git reset --hard": "tracked3.txt", "git branch -D old": None,
            "git stash drop": None}
MODES_OF = {"f11.txt": 0o640, "d12/inner.txt": 0o600}


def _git(project: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=project, env=env, check=True, capture_output=True, text=True).stdout


def _plant(project: Path) -> dict[str, tuple[bytes, int]]:
    """A real git repository with a file for every destructive command; returns each file's bytes and mode."""
    (project / ".git").rmdir()
    _git(project, "init", "-q")
    for rel in [*DESTRUCTIVE.values(), "src1.txt", "src2.txt", "src3.txt", "tracked.txt", "tracked2.txt",
                "tracked3.txt"]:
        path = project / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"content of {rel}\n".encode())
    for rel, mode in MODES_OF.items():
        os.chmod(project / rel, mode)
    _git(project, "add", "-A")
    _git(project, "commit", "-qm", "base")
    _git(project, "branch", "old")
    for rel in ("tracked.txt", "tracked2.txt", "tracked3.txt"):          # uncommitted work git would discard
        (project / rel).write_text(f"work in progress on {rel}\n")
    (project / "untracked.txt").write_text("not yet added\n")
    return {rel: ((project / rel).read_bytes(), stat.S_IMODE((project / rel).stat().st_mode))
            for rel in [*DESTRUCTIVE.values(), "untracked.txt", "tracked.txt", "tracked2.txt", "tracked3.txt"]}


def _calls(commands: list[str]) -> list[tuple[str, dict[str, str]]]:
    return [("bash", {"command": c}) for c in commands]


def _intact(project: Path, before: dict[str, tuple[bytes, int]], rel: str) -> bool:
    path = project / rel
    return (not path.is_symlink() and path.exists() and os.access(path, os.R_OK)
            and (path.read_bytes(), stat.S_IMODE(path.stat().st_mode)) == before[rel])


@needs_namespaces
def test_default_mode_stops_every_destructive_form_and_keeps_the_files(server, run_axon, project: Path) -> None:
    before = _plant(project)
    commands = [*DESTRUCTIVE, *GIT_ONLY]
    server.add(tool_reply(*_calls(commands)), text_reply("done"))
    r = run_axon("run", "clean up", "--sandbox", "auto")          # default mode, no --yes: asks are denied
    assert r.code == 0, r.stderr
    for rel in [*DESTRUCTIVE.values(), "untracked.txt", "tracked.txt", "tracked2.txt", "tracked3.txt"]:
        assert _intact(project, before, rel), rel
    assert "old" in _git(project, "branch", "--list", "old")
    results = [m for m in server.requests[1].messages if m["role"] == "tool"]
    assert len(results) == len(commands) and all(m["content"].startswith("Permission denied") for m in results)
    denied = [line for line in r.stderr.splitlines() if line.startswith("✗ bash")]
    assert len(denied) == len(commands), r.stderr
    for line in denied:          # each line names what would permit it: an allow rule or a wider mode
        assert "--mode auto" in line or 'allow rule "bash(' in line, line


@needs_namespaces
def test_auto_mode_runs_them_and_undo_restores_content_and_mode(server, run_axon, project: Path) -> None:
    before = _plant(project)
    server.add(tool_reply(*_calls(list(DESTRUCTIVE))), text_reply("done"))
    r = run_axon("run", "clean up", "--mode", "auto", "--sandbox", "auto")
    assert r.code == 0, r.stderr
    results = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"]
    assert not [c for c in results if c.startswith("Permission denied")], results
    changed = [rel for rel in DESTRUCTIVE.values() if not _intact(project, before, rel)]
    assert changed == list(DESTRUCTIVE.values()), results          # every command did its damage
    u = run_axon("undo")
    assert u.code == 0 and "Traceback" not in u.stderr, u.stderr
    for rel in DESTRUCTIVE.values():
        assert _intact(project, before, rel), rel


@needs_namespaces
def test_default_mode_still_runs_scripts_builds_and_new_files_unasked(server, run_axon, project: Path) -> None:
    (project / "gen.py").write_text("open('gen.out', 'w').write('made')\n")
    (project / "Makefile").write_text("all:\n\techo built > build.out\n")
    (project / "test_a.py").write_text("def test_a():\n    assert 1\n")
    commands = ["python3 gen.py", "make", "touch new.txt", "mkdir -p build/x", "echo x > fresh.txt",
                "cp gen.py copy.py", "ls -la", "git status"]
    server.add(tool_reply(*_calls(commands)), text_reply("done"))
    r = run_axon("run", "build it", "--sandbox", "auto")
    assert r.code == 0, r.stderr
    results = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"]
    assert not [c for c in results if c.startswith("Permission denied")], results
    assert (project / "gen.out").read_text() == "made" and (project / "build.out").read_text() == "built\n"
    assert (project / "new.txt").exists() and (project / "build" / "x").is_dir()
    assert (project / "fresh.txt").read_text() == "x\n" and (project / "copy.py").exists()


def test_chat_asks_before_rm_and_n_keeps_the_file(server, project: Path, axon_env) -> None:
    from tests.e2e.ui.test_repl import Chat

    (project / "keep.txt").write_text("precious\n")
    server.add(tool_reply(("bash", {"command": "rm keep.txt"})), text_reply("kept it"))
    c = Chat(project, axon_env)
    try:
        c.prompt()
        c.say("remove keep.txt")
        c.expect("allow bash?")
        c.send("n")
        c.expect("kept it")
        assert (project / "keep.txt").read_text() == "precious\n"
        c.exit()
    finally:
        if c.child.isalive():
            c.child.terminate(force=True)
    assert "Traceback" not in c.raw


@needs_namespaces
def test_auto_from_an_untrusted_project_is_ignored_until_trusted(server, run_axon, project: Path) -> None:
    (project / "canary.txt").write_text("still here\n")
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text('mode = "auto"\n')
    rm = tool_reply(("bash", {"command": "rm canary.txt"}))
    server.add(rm, text_reply("tidied"), rm, text_reply("tidied"))
    r = run_axon("run", "tidy up")                      # sandboxed, but the project's `auto` does not count
    assert r.code == 0, r.stderr
    assert (project / "canary.txt").read_text() == "still here\n"
    assert any('mode = "auto"' in line and "ignored until this folder is trusted" in line
               for line in r.stderr.splitlines()), r.stderr
    assert run_axon("trust", "--yes").code == 0
    r = run_axon("run", "tidy up")
    assert r.code == 0, r.stderr
    assert not (project / "canary.txt").exists()          # trusted: auto runs it (and undo can bring it back)
    assert run_axon("undo").code == 0 and (project / "canary.txt").read_text() == "still here\n"


def test_auto_without_a_sandbox_acts_as_accept_edits_and_says_so_once(server, run_axon, project: Path) -> None:
    (project / "canary.txt").write_text("still here\n")
    (project / "notes.txt").write_text("a\n")
    server.add(tool_reply(("bash", {"command": "rm canary.txt"}), ("bash", {"command": "sed -i s/a/b/ notes.txt"})),
               text_reply("done"))
    r = run_axon("run", "tidy up", "--mode", "auto", "--sandbox", "off")
    assert r.code == 0, r.stderr
    assert (project / "canary.txt").read_text() == "still here\n"          # destructive: asked, so denied
    assert (project / "notes.txt").read_text() == "b\n"                    # an edit runs, as in accept-edits
    notes = [line for line in r.stderr.splitlines() if "acts as accept-edits" in line]
    assert len(notes) == 1, r.stderr
