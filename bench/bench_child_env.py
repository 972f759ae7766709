"""Benchmark: what building a child's environment costs per spawn (``sandbox.child_env``), against
a filter by names only (what it replaced, with today's name list), in the same run.

    python bench/bench_child_env.py [--vars N] [--runs R]

The environment is this process's own plus N synthetic ordinary variables (paths, flags, URLs
without credentials), and one planted copy of each kind the builder drops (a token under a plain
name, a URL with a password, OTEL headers), as a developer's shell would have.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from axon_cli.machinery.masking import is_credential_env
from axon_cli.machinery.sandbox.child_env import NONINTERACTIVE_ENV, child_env


def baseline(source: dict[str, str]) -> dict[str, str]:
    """Names only: no URL credentials removed, no values masked, nothing of axon's own looked for."""
    env = {k: v for k, v in source.items() if not is_credential_env(k)}
    env.update(NONINTERACTIVE_ENV)
    return env


def environment(extra: int) -> dict[str, str]:
    env = dict(os.environ)
    for i in range(extra):
        env[f"BENCH_VAR_{i}"] = [f"/opt/tool{i}/bin:/usr/bin", f"value-{i}", f"https://mirror{i}.example/simple",
                                 "1", f"--flag-{i} --other"][i % 5]
    env.update({"BUILD_SETTING": "ghp_" + "Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5",
                "DATABASE_URL": "postgres://app:pw-93ka@db:5432/app",
                "OTEL_EXPORTER_OTLP_HEADERS": "Authorization=Bearer abc123def456"})
    return env


def per_call_ms(fn, source: dict[str, str], runs: int) -> float:  # type: ignore[no-untyped-def]
    fn(source)                                   # the masker is built once per process: not counted
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(source)
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vars", type=int, default=100)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    source = environment(args.vars)
    old, new = per_call_ms(baseline, source, args.runs), per_call_ms(child_env, source, args.runs)
    print(f"{len(source)} variables: name-only filter {old:.3f} ms, child_env {new:.3f} ms per spawn "
          f"({new / old:.1f}x; {len(baseline(source)) - len(child_env(source))} more dropped by value)")


if __name__ == "__main__":
    main()
