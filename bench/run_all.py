"""Run every bench and print one table: each row axon vs its baseline (medians of N runs, taken
alternately in the same run), the ratio, and the goal. Numbers never go into tests.

    bench/run                 # all rows (about 3 minutes on 2 cores)
    bench/run --runs 5        # fewer repetitions
    bench/run --skip tree,turns

Rows: start-up (``--version``, ``--help``, ``axon run hi``, ``axon chat`` until its prompt is on
screen), bash printing 100 MB, ``list_files`` (in and outside git) and ``search_files`` on a
50,000-file tree, 200 scripted ``read_file`` turns vs the raw openai SDK
sending the same requests, peak RSS for 1 GiB of bash output, peak RSS of ``axon run`` reading hostile
pictures (bench_images.py: ≤ 300 MB each), first-request tokens, and Ctrl-C
latency of a running command. axon's own modules are byte-compiled first (as ``pip install`` does).
"""

from __future__ import annotations

import argparse
import compileall
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_images import image_rss_notes  # noqa: E402
from bench_rows import (  # noqa: E402
    bash_row,
    chat_prompt_row,
    ctrl_c_row,
    first_request_tokens,
    rss_row,
    run_hi_row,
    tree_rows,
    turns_row,
)

import axon_cli  # noqa: E402

Row = tuple[str, float, str, float, str, float | None]   # what, axon, baseline, base value, unit, goal


def axon_cmd() -> list[str]:
    script = Path(sys.executable).parent / "axon"
    return [str(script)] if script.exists() else [sys.executable, "-m", "axon_cli"]


def alternate(cmds: list[list[str]], runs: int, env: dict[str, str], cwd: Path | None = None) -> list[float]:
    """Median wall time (s) of each command, the commands taking turns so load hits them alike."""
    times: list[list[float]] = [[] for _ in cmds]
    for _ in range(runs):
        for i, cmd in enumerate(cmds):
            t = time.perf_counter()
            subprocess.run(cmd, env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            times[i].append(time.perf_counter() - t)
    return [statistics.median(t) for t in times]


def startup_rows(runs: int, tmp: Path) -> list[Row]:
    env = {**os.environ, "HOME": str(tmp / "home"), "XDG_CACHE_HOME": str(tmp / "cache")}
    axon = axon_cmd()
    py = sys.executable
    subprocess.run([*axon, "--help"], env=env, stdout=subprocess.DEVNULL, check=False)   # the first renders
    t_pass, t_version, t_typer, t_help = alternate(
        [[py, "-c", "pass"], [*axon, "--version"], [py, "-c", "import typer"], [*axon, "--help"]], runs, env)
    return [("`axon --version`", t_version, "`python -c pass`", t_pass, "s", 2.0),
            ("`axon --help`", t_help, '`python -c "import typer"`', t_typer, "s", 1.3)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=11, help="repetitions per timed row (default 11)")
    ap.add_argument("--skip", default="", help="comma-separated: startup,run,chat,bash,tree,turns,rss,images,ctrlc")
    args = ap.parse_args()
    skip = set(filter(None, args.skip.split(",")))
    compileall.compile_dir(str(Path(axon_cli.__file__).parent), quiet=1)
    rows: list[Row] = []
    notes: list[str] = []
    steps: list[tuple[str, Callable[[Path], None]]] = [
        ("startup", lambda tmp: rows.extend(startup_rows(args.runs, tmp))),
        ("run", lambda tmp: rows.append(run_hi_row(axon_cmd(), args.runs, tmp, alternate))),
        ("chat", lambda tmp: rows.append(chat_prompt_row(axon_cmd(), args.runs, tmp))),
        ("bash", lambda tmp: rows.extend(bash_row(max(5, args.runs // 2)))),
        ("tree", lambda tmp: rows.extend(tree_rows(max(3, args.runs // 3), tmp))),
        ("turns", lambda tmp: rows.append(turns_row(axon_cmd(), max(3, args.runs // 4), tmp))),
        ("rss", lambda tmp: notes.append(rss_row())),
        ("images", lambda tmp: notes.extend(image_rss_notes(axon_cmd(), tmp))),
        ("ctrlc", lambda tmp: notes.append(ctrl_c_row(axon_cmd(), max(3, args.runs // 3), tmp))),
    ]
    for name, step in steps:
        if name in skip:
            continue
        print(f"… {name}", file=sys.stderr, flush=True)
        with tempfile.TemporaryDirectory(prefix=f"axon-bench-{name}-") as tmp:
            step(Path(tmp))
    if "run" not in skip:
        notes.append(first_request_tokens(axon_cmd()))
    print(table(rows, args.runs))
    for note in notes:
        print(note)
    within = all(goal is None or a / b <= goal for _, a, _, b, _, goal in rows) and not any("✗" in n for n in notes)
    return 0 if within else 1


def table(rows: list[Row], runs: int) -> str:
    out = [f"| what (median of ~{runs}) | axon | baseline | ratio | goal |", "| --- | --- | --- | --- | --- |"]
    def fmt(v: float, unit: str) -> str:
        return f"{v * 1000:.0f} ms" if unit == "s" else f"{v:.1f} {unit}"

    for what, a, base, b, unit, goal in rows:
        ok = "" if goal is None else (" ✓" if a / b <= goal else " ✗")
        goal_text = "" if goal is None else f"≤ {goal:g}×{ok}"
        out.append(f"| {what} | {fmt(a, unit)} | {base} {fmt(b, unit)} | {a / b:.2f}× | {goal_text} |")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
