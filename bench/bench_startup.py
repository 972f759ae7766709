"""Startup cost of `axon --help` / `axon --version`, as a ratio to `python -c pass` in the same run.

    python bench/bench_startup.py [--runs 15]

Prints median wall times and ratios. Also shows `import openai` alone for scale: `axon --help`
must not pay for it (the CLI imports heavy modules lazily).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path


def median_ms(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    runs = parser.parse_args().runs
    axon = Path(sys.executable).parent / "axon"
    axon_cmd = [str(axon)] if axon.exists() else [sys.executable, "-m", "axon_cli"]
    cases = {
        "python -c pass (baseline)": [sys.executable, "-c", "pass"],
        "axon --version": [*axon_cmd, "--version"],
        "axon --help": [*axon_cmd, "--help"],
        "import typer": [sys.executable, "-c", "import typer"],
        "import openai": [sys.executable, "-c", "import openai"],
    }
    base = None
    for name, cmd in cases.items():
        ms = median_ms(cmd, runs)
        base = base or ms
        print(f"{name:<28} {ms:8.1f} ms   x{ms / base:5.1f}")


if __name__ == "__main__":
    main()
