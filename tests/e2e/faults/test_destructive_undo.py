"""Issue 34, item 5, end to end: each "program's own output option or move" form is undone by ``axon
undo`` after it ran in ``--mode auto``, and in ``default`` it asks (without ``--yes``: denied, the
files untouched).

The real ``axon run`` against the scripted server makes one bash call with the form (in ``auto``, one run
per form: each form is the first change of its own turn, so its own snapshot is what undo uses; in
``default``, nothing may change, so one run calls every form in turn, each judged on its own); the project
holds real files (an existing archive, a file a compressor replaces, a move's source …). The check is
the disk: every file of the working tree (``.git`` and axon's ``.axon`` aside), byte for byte, before and after. A form
whose program is not installed here is skipped with its name.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import make_axon_env, make_project, run_axon_in
from tests.fakeserver import Reply, ScriptedServer, text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

# the form, and the programs it needs
FORMS: list[tuple[str, tuple[str, ...]]] = [
    ("tar -cf arch.tar b.txt", ("tar",)), ("tar -czf new.tgz --remove-files b.txt", ("tar", "gzip")),
    ("tar -xf arch.tar", ("tar",)), ("zip -qm new.zip a.txt", ("zip",)), ("zip -q old.zip b.txt", ("zip",)),
    ("unzip -oq old.zip", ("unzip",)), ("mv a.txt a.txt.bak", ()), ("mv -n a.txt renamed.txt", ()),
    ("gzip a.txt", ("gzip",)), ("gunzip c.txt.gz", ("gzip",)), ("bzip2 a.txt", ("bzip2",)), ("xz a.txt", ("xz",)),
    ("zstd -q --rm a.txt", ("zstd",)), ("lz4 -q --rm a.txt", ("lz4",)), ("sort -o a.txt b.txt", ("sort",)),
    ("split -l 1 lines.txt", ("split",)), ("patch -s -p0 < fix.diff", ("patch",)), ("patch -s a.txt fix.diff", ("patch",)),
    ("rsync -a --remove-source-files b.txt sub/", ("rsync",)), ("git mv -f b.txt a.txt", ("git",)),
    ("git rm -q b.txt", ("git",)), ("cp b.txt a.txt", ()), ("ln -f b.txt a.txt", ()), ("tee a.txt < b.txt", ()),
    ("dd if=b.txt of=a.txt status=none", ("dd",)), ("truncate -s 0 a.txt", ("truncate",)),
]
IDS = [c for c, _ in FORMS]


def _fill(root: Path) -> None:
    """A git repository with the files every form needs, committed."""
    shutil.rmtree(root / ".git")
    files = {"a.txt": "precious a\n", "b.txt": "b's own bytes\n", "lines.txt": "1\n2\n3\n", "xaa": "old chunk\n",
             "sub/keep.txt": "k\n", "a.txt.gz": "", "a.txt.bz2": "", "a.txt.xz": ""}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    for name in ("a.txt.gz", "a.txt.bz2", "a.txt.xz"):   # a compressor's output is new: only its input is at stake
        (root / name).unlink()
    (root / "fix.diff").write_text("--- a.txt\n+++ a.txt\n@@ -1 +1 @@\n-precious a\n+patched\n")
    subprocess.run(["tar", "-cf", "arch.tar", "a.txt"], cwd=root, check=True)        # its member: a.txt
    (root / "a.txt").write_text("precious a\n")
    if shutil.which("zip"):
        subprocess.run(["zip", "-q", "old.zip", "a.txt"], cwd=root, check=True)
    if shutil.which("gzip"):
        (root / "c.txt").write_text("c\n")
        subprocess.run(["gzip", "c.txt"], cwd=root, check=True)
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "-c", "user.name=t", "-c", "user.email=t@t",
                                                             "commit", "-qm", "base"]):
        subprocess.run(cmd, cwd=root, check=True)
    (root / "a.txt").write_text("precious a, changed since the commit\n")   # unique bytes: git holds no copy


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and not {".git", ".axon"} & set(p.relative_to(root).parts)}


def _needs(programs: tuple[str, ...]) -> None:
    missing = [p for p in programs if shutil.which(p) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} is not installed on this machine")


@needs_namespaces
@pytest.mark.parametrize("command,programs", FORMS, ids=IDS)
def test_undo_restores_each_form_run_in_auto(command: str, programs: tuple[str, ...], server, run_axon,
                                             project: Path) -> None:
    _needs(programs)
    _fill(project)
    before = _tree(project)
    server.add(tool_reply(("bash", {"command": command})), text_reply("done"))
    # --yes: the forms auto still asks about (an archive's members, git writing .git) run as well
    r = run_axon("run", "do it", "--mode", "auto", "--yes", "--output-format", "stream-json")
    assert r.code == 0, r.stderr
    assert _tree(project) != before, f"{command} changed nothing: {r.stdout[-2000:]}"
    undo = run_axon("undo")
    assert undo.code == 0, undo.stderr
    after = _tree(project)
    assert after == before, (command, undo.stdout, sorted(set(after.items()) ^ set(before.items())))


@pytest.fixture(scope="module")
def default_mode_session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One ``axon run`` in default mode (no ``--yes``) whose model calls bash with every installed form
    in turn, one call per request (call id ``form<i>``); the working tree is read after each call, when
    the model is asked again. Each form's own test below judges its call: asked or denied, nothing
    changed. Every call is judged on its own by the permission stage, so one session serves them all."""
    project = make_project(tmp_path_factory.mktemp("default-mode"))
    _fill(project)
    before = _tree(project)
    present = [i for i, (_c, programs) in enumerate(FORMS) if all(shutil.which(p) for p in programs)]
    trees: dict[int, dict[str, bytes]] = {}

    def after(i: int) -> Callable[[dict[str, Any]], Reply]:
        def reply(_body: dict[str, Any]) -> Reply:
            trees[i] = _tree(project)             # what the call of form i left
            following = present.index(i) + 1
            if following == len(present):
                return text_reply("done")
            nxt = present[following]
            return tool_reply(("bash", {"command": FORMS[nxt][0]}), call_ids=[f"form{nxt}"])
        return reply

    with ScriptedServer([tool_reply(("bash", {"command": FORMS[present[0]][0]}), call_ids=[f"form{present[0]}"]),
                         *[after(i) for i in present]]) as server:
        r = run_axon_in(project, make_axon_env(project, server.url), "run", "do it", "--output-format",
                        "stream-json", "--max-turns", str(len(present) + 5), timeout=300)
    return {"ran": r, "before": before, "trees": trees, "decisions": _decisions_by_call(r.stdout)}


def _decisions_by_call(stdout: str) -> dict[str, list[str]]:
    events = [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]
    out: dict[str, list[str]] = {}
    for e in events:
        if e["type"] == "permission_decision":
            out.setdefault(e["call_id"], []).append(e["decision"])
    return out


@needs_namespaces
@pytest.mark.parametrize("command,programs", FORMS, ids=IDS)
def test_each_form_asks_in_default_and_without_yes_the_files_stay(command: str, programs: tuple[str, ...],
                                                                  default_mode_session: dict[str, Any]) -> None:
    _needs(programs)
    i = IDS.index(command)
    r = default_mode_session["ran"]
    assert r.code == 0, r.stderr
    assert default_mode_session["decisions"].get(f"form{i}", [])[:1] in (["deny"], ["ask"]), (command, r.stdout[-2000:])
    trees, present = default_mode_session["trees"], sorted(default_mode_session["trees"])
    assert i in trees, f"{command}: the run ended before this form's call: {r.stdout[-2000:]}"
    # what this call started from: the files as filled, or as the form before it left them (the same if
    # that form passed; if it changed something, its own test fails and names it)
    start = trees[present[present.index(i) - 1]] if present.index(i) else default_mode_session["before"]
    assert trees[i] == start, (command, sorted(set(trees[i].items()) ^ set(start.items())))
