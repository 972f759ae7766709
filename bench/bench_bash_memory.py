"""Bench (not a test): peak RSS of axon while the ``bash`` tool runs a command printing 1 GiB.

The command's output goes through the real pipeline (``Dispatcher`` → bash handler → masking →
spill file → governance). Peak RSS is the kernel's high-water mark (``VmHWM`` in
/proc/self/status, reset through /proc/self/clear_refs where allowed; ``ru_maxrss`` otherwise),
measured once after a baseline run of ``true`` and again after the big command.

    python bench/bench_bash_memory.py            # 1 GiB
    python bench/bench_bash_memory.py --mib 100  # quicker
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

from axon_cli.machinery.sandbox import resolve
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

LIMIT_MB = 100.0


def status_kb(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def peak_mb() -> float:
    hwm = status_kb("VmHWM")
    if hwm is not None:
        return hwm / 1024
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024


def run(dispatcher: Dispatcher, command: str) -> tuple[float, dict]:  # type: ignore[type-arg]
    started = time.monotonic()
    run.calls = getattr(run, "calls", 0) + 1  # type: ignore[attr-defined]
    call_id = f"bench_{run.calls}"  # type: ignore[attr-defined]
    result = dispatcher.dispatch(ToolCall(call_id, "bash", json.dumps({"command": command, "timeout": 600})))
    return time.monotonic() - started, {"chars": len(result.content), "truncated": result.truncated,
                                        "spill": result.spill_path, "ok": result.ok,
                                        "end": result.content.split("\n[full output", 1)[0].rsplit("\n", 1)[-1]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=1024, help="output size in MiB (default 1024)")
    parser.add_argument("--keep", action="store_true", help="keep the spill file")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="axon-bench-"))
    try:
        ctx = ToolContext(project_root=root, state_dir=root / ".axon", session_id="bench", settings=Settings())
        dispatcher = Dispatcher(ToolRegistry.with_builtins(resolve(ctx.settings.sandbox)), ctx)
        run(dispatcher, "true")                                  # warm up: imports, first spawn
        rss_before = (status_kb("VmRSS") or 0) / 1024
        can_reset = reset_peak()
        run(dispatcher, "true")
        baseline = peak_mb()
        can_reset = reset_peak() and can_reset
        nbytes = args.mib * 1024 * 1024
        line = "0123456789 the quick brown fox jumps over the lazy dog; build step ok [100%]"
        command = f"yes '{line}' | head -c {nbytes}"
        elapsed, info = run(dispatcher, command)
        peak = peak_mb()
        print(f"output:            {args.mib} MiB ({nbytes} bytes) of {len(line) + 1}-char lines")
        print(f"time:              {elapsed:.1f} s ({args.mib / elapsed:.1f} MiB/s through mask + spill)")
        print(f"RSS before:        {rss_before:.1f} MB")
        print(f"peak, `true`:      {baseline:.1f} MB   (baseline{'' if can_reset else '; peak not resettable'})")
        print(f"peak, big command: {peak:.1f} MB   (+{peak - baseline:.1f} MB over the baseline)")
        print(f"result sent:       {info['chars']} chars, truncated={info['truncated']}, ends with {info['end']!r}")
        spill = Path(info["spill"]) if info["spill"] else None
        print(f"spill file:        {spill.stat().st_size if spill else 0} bytes")
        ok = peak < LIMIT_MB
        print(f"{'PASS' if ok else 'FAIL'}: peak RSS {peak:.1f} MB {'<' if ok else '>='} {LIMIT_MB:.0f} MB")
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
