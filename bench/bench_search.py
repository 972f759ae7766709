"""Bench (not a test): list_files / search_files on a generated tree, ripgrep vs pure Python.

    python bench/bench_search.py [--files 50000]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from axon_cli.settings.config import Settings
from axon_cli.tools.builtin.search.search_tools import SearchFilesInput, list_paths, search
from axon_cli.tools.spec import ToolContext


def make_tree(root: Path, n: int) -> None:
    (root / ".git").mkdir()
    (root / ".gitignore").write_text("ignored/\n*.log\n")
    for i in range(n):
        d = root / f"pkg{i % 50}" / f"mod{i % 997}"
        d.mkdir(parents=True, exist_ok=True)
        body = "".join(f"def func_{i}_{j}(x):\n    return x + {j}\n" for j in range(20))
        (d / f"file{i}.py").write_text(body + ("# NEEDLE\n" if i % 1000 == 0 else ""))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=50_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        make_tree(root, args.files)
        print(f"tree: {args.files} files in {time.perf_counter() - t:.1f} s")
        ctx = ToolContext(project_root=root, state_dir=root / ".axon", session_id="bench", settings=Settings())
        for backend in ("rg", "python"):
            t = time.perf_counter()
            out = search(ctx, SearchFilesInput(pattern="NEEDLE"), backend=backend)
            t_search = time.perf_counter() - t
            t = time.perf_counter()
            listing = list_paths(ctx, ".", "**/*.py", backend=backend)
            t_list = time.perf_counter() - t
            print(f"{backend:6s}: search_files {t_search:.2f} s ({out.summary}), "
                  f"list_files {t_list:.2f} s ({listing.summary})")


if __name__ == "__main__":
    os.environ.pop("AXON_NO_RIPGREP", None)
    main()
