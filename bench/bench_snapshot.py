"""Bench (not a test): what a workspace snapshot (undo) costs, and the sandbox's per-command search.

Builds temporary projects and times ``ProjectSnapshots.take()`` — the snapshot taken before a turn's
first change — with a baseline in the same run (walking the same tree with ``os.walk`` + ``lstat``):

- a project with a 500 MB untracked directory, in two shapes: 500 files of 1 MB (under the per-file
  cap: the per-snapshot budget bounds what the first snapshot reads) and 5 files of 100 MB (over
  the per-file cap: skipped from their size alone);
- a 50,000-file tree: the first snapshot (cold: every file is new), an unchanged one, one after 10
  files changed;
- the sandbox's search for sensitive project files (``hidden_set``) on the 50,000-file tree, paid
  by every sandboxed command.

    python bench/bench_snapshot.py               # all of it (needs ~600 MB free in $TMPDIR)
    python bench/bench_snapshot.py --files 5000  # a smaller tree
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

MB = 1024 * 1024


def timed(fn: Callable[[], object]) -> float:
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started


def walk(root: Path) -> int:
    n = 0
    for top, _dirs, files in os.walk(root):
        for name in files:
            os.lstat(os.path.join(top, name))
            n += 1
    return n


def project(base: Path, name: str) -> Path:
    root = base / name
    (root / ".git").mkdir(parents=True)
    (root / "src").mkdir()
    for i in range(50):
        (root / "src" / f"m{i}.py").write_text(f"x = {i}\n" * 40)
    return root


def big_untracked(root: Path, count: int, size: int) -> None:
    data = root / "data"
    data.mkdir()
    chunk = os.urandom(MB)
    for i in range(count):
        with open(data / f"part{i:04d}.bin", "wb") as fh:
            for _ in range(size // MB):
                fh.write(chunk)


def tree(root: Path, files: int) -> None:
    per_dir = 100
    for d in range(files // per_dir):
        folder = root / "pkg" / f"d{d}"
        folder.mkdir(parents=True)
        for f in range(per_dir):
            (folder / f"f{f}.py").write_text(f"value = {d * per_dir + f}\n" * 20)


def report(label: str, seconds: float, baseline: float | None = None) -> None:
    ratio = f"  (x{seconds / baseline:.1f} the walk)" if baseline else ""
    print(f"  {label:<46} {seconds * 1000:8.0f} ms{ratio}")


def snapshot_cost(root: Path) -> tuple[float, dict[str, str]]:
    from axon_cli.machinery.snapshots import ProjectSnapshots

    store = ProjectSnapshots(root)
    with store.locked():
        started = time.perf_counter()
        snap = store.take()
        return time.perf_counter() - started, snap.skipped


def bench_untracked(base: Path, count: int, size: int) -> None:
    root = project(base, f"untracked-{count}x{size // MB}")
    big_untracked(root, count, size)
    baseline = timed(lambda: walk(root))
    print(f"500 MB untracked directory as {count} files of {size // MB} MB (walk {baseline * 1000:.0f} ms):")
    first, skipped = snapshot_cost(root)
    report("first snapshot", first, baseline)
    report(f"  ({len(skipped)} files left out: cap or budget)", 0.0)
    second, _ = snapshot_cost(root)
    report("next snapshot (nothing changed)", second, baseline)
    shutil.rmtree(root)


def bench_tree(base: Path, files: int) -> None:
    from axon_cli.machinery.sandbox import hidden_set

    root = project(base, f"tree-{files}")
    tree(root, files)
    baseline = timed(lambda: walk(root))
    print(f"{files:,}-file tree (walk {baseline * 1000:.0f} ms):")
    report("first snapshot (cold: every file new)", snapshot_cost(root)[0], baseline)
    report("next snapshot (nothing changed)", snapshot_cost(root)[0], baseline)
    for i in range(10):
        (root / "pkg" / f"d{i}" / "f0.py").write_text(f"changed = {i}\n")
    report("snapshot after 10 files changed", snapshot_cost(root)[0], baseline)
    (root / ".env").write_text("SECRET=1\n")
    report("sandbox: hidden_set (sensitive-file search)", timed(lambda: hidden_set(root, None)), baseline)
    shutil.rmtree(root)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--skip-big", action="store_true", help="skip the 500 MB directory")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="axon-bench-snapshot-"))
    os.environ["XDG_STATE_HOME"] = str(base / "state")
    try:
        if not args.skip_big:
            bench_untracked(base, 500, MB)
            bench_untracked(base, 5, 100 * MB)
        bench_tree(base, args.files)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
