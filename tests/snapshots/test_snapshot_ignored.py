"""Snapshots hold git-ignored files (within the size cap and budget) and leave regenerable and too
large ignored trees out: what the shadow tree holds, what coverage says of each path and why, and
that undo never deletes a file that was there before the turn but not held by its snapshot."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from axon_cli.machinery.snapshots import ProjectSnapshots, undo_turns
from axon_cli.machinery.snapshots import ignored as ignored_mod
from axon_cli.machinery.snapshots.coverage import uncovered
from axon_cli.machinery.snapshots.shadow import ShadowRepo


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data if isinstance(data, bytes) else data.encode())


def _tree(store: ProjectSnapshots, tree: str) -> set[str]:
    return set(store.repo.git("ls-tree", "-r", "-z", "--name-only", tree).decode().split("\0")) - {""}


def _why(store: ProjectSnapshots, skipped: dict[str, str], *rels: str) -> dict[str, str]:
    with store.locked():
        got = uncovered(store.repo, skipped, [str(store.root / r) if r else str(store.root) for r in rels])
    return {os.path.relpath(p, store.root): why for p, why in got.items()}


def regen(name: str, kind: str) -> str:
    return f"is a regenerable directory ({name}: {kind}), which undo does not hold"


@pytest.fixture
def tree(project: Path) -> Path:
    (project / ".gitignore").write_text("data/\n.venv/\nenv/\nnode_modules/\ntarget/\ndist/\n*.pyc\n")
    _write(project, {
        "src/app.py": "print(1)\n", "data/db.sqlite": b"SQLite format 3\0rows", "data/sub/notes.txt": "n\n",
        "data/sub/__pycache__/m.cpython-311.pyc": b"\0pyc", "data/big.bin": b"b" * (3 * 1024 * 1024),
        ".venv/pyvenv.cfg": "home = /usr\n", ".venv/lib/site.py": "x\n", "env/keep.txt": "not a venv\n",
        "node_modules/left-pad/index.js": "module.exports = 1\n", "rust/Cargo.toml": "[package]\n",
        "rust/target/debug/app": "elf\n", "target/notes.md": "not cargo's\n", "dist/pkg.whl": "whl\n",
        "pkg/__pycache__/a.cpython-311.pyc": b"\0pyc", ".axon/state.json": "{}\n"})
    return project


def test_ignored_files_are_held_and_regenerable_trees_are_not(tree: Path) -> None:
    store = ProjectSnapshots(tree, max_file_mb=2)
    with store.locked():
        snap = store.take()
    held = _tree(store, snap.tree)
    assert {"data/db.sqlite", "data/sub/notes.txt", "env/keep.txt", "target/notes.md", "src/app.py"} <= held
    assert not {p for p in held if p.startswith((".venv/", "node_modules/", "rust/target/", "dist/", ".axon/"))}
    assert not {p for p in held if "__pycache__" in p} and "data/big.bin" not in held
    assert snap.skipped["data/big.bin"] == "is over the snapshot size cap (2 MB)"
    assert snap.skipped["node_modules"] == regen("node_modules", "npm packages")
    assert snap.skipped[".venv"] == regen(".venv", "a Python virtual environment")
    assert snap.skipped["rust/target"] == regen("target", "Cargo's build output")


def test_coverage_says_exactly_which_ignored_paths_undo_cannot_bring_back(tree: Path) -> None:
    store = ProjectSnapshots(tree, max_file_mb=2)
    with store.locked():
        snap = store.take()
    got = _why(store, snap.skipped, "data/db.sqlite", "data/sub/notes.txt", "env/keep.txt", "data/big.bin",
               "node_modules", "node_modules/left-pad/index.js", ".venv/lib/site.py", "rust/target", "dist",
               "data/sub/__pycache__", "pkg/__pycache__/a.cpython-311.pyc", "data", ".axon/state.json",
               ".git/config", "", "data/made-later.txt")
    cap = "is over the snapshot size cap (2 MB)"
    assert got == {
        "data/big.bin": cap, "node_modules": regen("node_modules", "npm packages"),
        "node_modules/left-pad/index.js": "is in node_modules, which " + regen("node_modules", "npm packages"),
        ".venv/lib/site.py": "is in .venv, which " + regen(".venv", "a Python virtual environment"),
        "rust/target": regen("target", "Cargo's build output"), "dist": regen("dist", "build output"),
        "data/sub/__pycache__": regen("__pycache__", "Python bytecode"),
        "pkg/__pycache__/a.cpython-311.pyc": "is in pkg/__pycache__, which " + regen("__pycache__", "Python bytecode"),
        "data": f"holds data/big.bin, which {cap}", ".axon/state.json": "is in .axon/, which is not snapshotted",
        ".git/config": "is in a .git directory, which is not snapshotted",
        ".": "holds .venv, which " + regen(".venv", "a Python virtual environment"),
    }


def test_a_large_ignored_directory_is_left_out_but_its_small_neighbours_are_held(project: Path,
                                                                                 monkeypatch) -> None:
    monkeypatch.setattr(ignored_mod, "MAX_FILES", 40)
    (project / ".gitignore").write_text("data/\n")
    _write(project, {"data/db.sqlite": "precious\n", "data/small/a.txt": "a\n",
                     **{f"data/raw/{i:03}.csv": "1,2\n" for i in range(100)},                   # too many files
                     **{f"data/wide/{i}.bin": b"w" * 30_000 for i in range(4)}})                # too many bytes
    store = ProjectSnapshots(project, max_new_mb=0.1)
    with store.locked():
        snap = store.take()
    held = _tree(store, snap.tree)
    assert {"data/db.sqlite", "data/small/a.txt"} <= held and not {p for p in held if "/raw/" in p or "/wide/" in p}
    got = _why(store, snap.skipped, "data/db.sqlite", "data/raw/001.csv", "data/wide", "data")
    assert set(got) == {"data/raw/001.csv", "data/wide", "data"}
    assert got["data/wide"].startswith("is a git-ignored directory holding more than a snapshot takes (0.1 MB or 40")


def test_a_huge_ignored_tree_is_listed_only_up_to_the_bound(project: Path, monkeypatch) -> None:
    monkeypatch.setattr(ignored_mod, "MAX_FILES", 50)
    (project / ".gitignore").write_text("dataset/\n")
    for d in range(20):
        _write(project, {f"dataset/part{d}/{i}.txt": "x" for i in range(60)})
    found = ignored_mod.collect(str(project), ["dataset/"], 1 << 20, 1 << 20, 1 << 20)
    assert not found.files and found.scanned < 20 * 60           # each part stopped at the bound
    assert set(found.left_out) == {f"dataset/part{d}" for d in range(20)}


def test_unchanged_ignored_files_are_not_read_again(project: Path, monkeypatch) -> None:
    (project / ".gitignore").write_text("data/\n")
    _write(project, {f"data/{i}.txt": f"{i}\n" for i in range(50)})
    store = ProjectSnapshots(project)
    with store.locked():
        first = store.take()
    reads: list[str] = []
    original = ShadowRepo._read
    monkeypatch.setattr(ShadowRepo, "_read", lambda self, rel, *a: reads.append(rel) or original(self, rel, *a))
    (project / "data" / "7.txt").write_text("changed\n")
    with store.locked():
        second = store.take()
    assert reads == ["data/7.txt"] and first.tree != second.tree


def _turn(store: ProjectSnapshots, change) -> list[str]:
    with store.locked():
        record, _snap = store.start_turn("s", 1, "go")
    change()
    with store.locked():
        store.finish_turn(record["id"])
    return [o.line().strip() for r in undo_turns(store) for o in r.outcomes]


def test_undo_restores_an_ignored_file_with_its_bits(project: Path) -> None:
    (project / ".gitignore").write_text(".env.local\n")
    (project / ".env.local").write_text("TOKEN=1\n")
    os.chmod(project / ".env.local", 0o600)
    lines = _turn(ProjectSnapshots(project), lambda: (project / ".env.local").unlink())
    assert lines == ["restored .env.local"]
    assert (project / ".env.local").read_text() == "TOKEN=1\n"
    assert (project / ".env.local").stat().st_mode & 0o777 == 0o600


def test_undo_never_deletes_a_file_that_was_there_but_not_held(project: Path) -> None:
    """A file the budget left out of the ``before`` snapshot and the ``after`` one took, and a
    directory too large before the turn and small after it: both were there before the turn."""
    (project / ".gitignore").write_text("data/\n")
    _write(project, {"m1.bin": b"1" * 600_000, "m2.bin": b"2" * 600_000,
                     **{f"data/raw/{i}.bin": b"r" * 40_000 for i in range(30)}})
    store = ProjectSnapshots(project, max_new_mb=1)

    def shrink() -> None:
        for i in range(1, 30):
            (project / "data" / "raw" / f"{i}.bin").unlink()

    lines = _turn(store, shrink)
    assert (project / "m2.bin").read_bytes() == b"2" * 600_000
    assert (project / "data" / "raw" / "0.bin").read_bytes() == b"r" * 40_000
    assert not any(line.startswith("deleted") for line in lines), lines
