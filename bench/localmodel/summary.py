"""Summaries of a chore run: per chore set and config, solved per repetition, mean ± spread, mean turns
and time, solved by kind; with both sets, a dev | test row per config.

    python bench/localmodel/summary.py results/before.json results/after.json   # print saved results again
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any


def _mean(xs: list[float]) -> float | None:
    return round(statistics.fmean(xs), 2) if xs else None


def summarize(runs: list[dict[str, Any]], n_chores: int) -> dict[str, Any]:
    """Per config: solved count per rep, their mean, sample sd, min and max; mean turns (runs that gave a
    JSON result), mean seconds, runs without a result, and solved by kind over all reps."""
    out: dict[str, Any] = {}
    for config in dict.fromkeys(r["config"] for r in runs):
        mine = [r for r in runs if r["config"] == config]
        reps = sorted({r["rep"] for r in mine})
        per_rep = [sum(r["solved"] for r in mine if r["rep"] == rep) for rep in reps]
        turns = [float(r["turns"]) for r in mine if r["turns"] is not None]
        kinds: dict[str, list[int]] = {}
        for r in mine:
            k = kinds.setdefault(r["kind"], [0, 0])
            k[0] += int(r["solved"])
            k[1] += 1
        usage = [r.get("usage") for r in mine]
        tokens = sum(u.get("total_tokens", 0) for u in usage if isinstance(u, dict))
        solved = sum(bool(r["solved"]) for r in mine)
        out[config] = {
            "chores": n_chores, "per_rep": per_rep, "mean_solved": _mean([float(x) for x in per_rep]),
            "sd_solved": round(statistics.stdev(per_rep), 2) if len(per_rep) > 1 else 0.0,
            "min_solved": min(per_rep, default=0), "max_solved": max(per_rep, default=0),
            "mean_turns": _mean(turns), "mean_turns_solved": _mean([float(r["turns"]) for r in mine
                                                                    if r["solved"] and r["turns"] is not None]),
            "mean_seconds": _mean([float(r["seconds"]) for r in mine]),
            "no_result": sum(r["turns"] is None for r in mine), "timed_out": sum(bool(r["timed_out"]) for r in mine),
            "by_kind": {k: f"{v[0]}/{v[1]}" for k, v in kinds.items()},
            # prompt + completion tokens of every run of the config (the server's usage) per solved chore;
            # None when a run has no usage on record (the server sent none, or the run gave no result)
            "tokens_per_solved": round(tokens / solved) if solved and all(isinstance(u, dict) for u in usage)
            else None,
        }
    return out


def set_sizes(meta: dict[str, Any]) -> dict[str, int]:
    """How many chores of each set a run covered; a file from before the sets holds development chores."""
    sets = meta.get("sets")
    if not sets:
        return {"dev": len(meta["chores"])}
    return {name: len(members) for name, members in sets.items() if members}


def summarize_sets(runs: list[dict[str, Any]], meta: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``summarize`` per chore set (``dev``, ``test``), each over its own runs and chore count."""
    return {name: summarize([r for r in runs if r.get("set", "dev") == name], n)
            for name, n in set_sizes(meta).items()}


def format_sets_row(by_set: dict[str, dict[str, Any]], sizes: dict[str, int]) -> str:
    """Per config, dev | test side by side (mean ± sd of n, solved per rep)."""
    def cell(s: dict[str, Any] | None, n: int) -> str:
        if not s:
            return "-"
        return f"{s['mean_solved']:.1f} ± {s['sd_solved']:.1f} of {n} ({', '.join(map(str, s['per_rep']))})"
    rows = ["\ndev | test", "| config | dev | test |", "| --- | --- | --- |"]
    for config in dict.fromkeys([*by_set["dev"], *by_set["test"]]):
        rows.append(f"| {config} | {cell(by_set['dev'].get(config), sizes['dev'])} | "
                    f"{cell(by_set['test'].get(config), sizes['test'])} |")
    return "\n".join(rows)


def format_report(by_set: dict[str, dict[str, Any]], meta: dict[str, Any], label: str = "") -> str:
    """A summary per set and, when both sets are present, the dev | test rows."""
    sizes = set_sizes(meta)
    parts = [format_summary(summary, sizes[name], " · ".join(x for x in (label, f"{name} set") if x))
             for name, summary in by_set.items()]
    if "dev" in by_set and "test" in by_set:
        parts.append(format_sets_row(by_set, sizes))
    return "\n".join(parts)


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write a results file whole or not at all: a temp file beside it, fsync, rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w") as f:
        f.write(json.dumps(data, indent=1) + "\n")
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)


def format_summary(summary: dict[str, Any], n_chores: int, label: str = "") -> str:
    head = (f"{'config':8} {'solved per rep':16} {'mean ± sd':14} {'min–max':8} {'turns':6} {'s/run':6} "
            "no-result tokens/solved")
    rows = [f"\nsummary{' · ' + label if label else ''} (of {n_chores} chores)", head]
    for config, s in summary.items():
        rows.append(f"{config:8} {' '.join(map(str, s['per_rep'])):16} "
                    f"{s['mean_solved']:5.1f} ± {s['sd_solved']:<5.1f}  {s['min_solved']}–{s['max_solved']:<5} "
                    f"{s['mean_turns'] if s['mean_turns'] is not None else '-':<6} {s['mean_seconds']:<6} "
                    f"{s['no_result']:<9} {s.get('tokens_per_solved') or '-'}")
    rows.append("by kind (solved/runs): " + "; ".join(
        f"{c}: " + ", ".join(f"{k} {v}" for k, v in s["by_kind"].items()) for c, s in summary.items()))
    rows.append("README rows:")
    for config, s in summary.items():
        rows.append(f"| {config} | {s['mean_solved']:.1f} ± {s['sd_solved']:.1f} of {n_chores} "
                    f"({', '.join(map(str, s['per_rep']))}) | {s['mean_turns']} |")
    return "\n".join(rows)


def main(paths: list[str]) -> int:
    for path in paths:
        data = json.loads(Path(path).read_text())
        meta = data["meta"]
        commits = " + ".join(c[:10] for c in meta.get("commits") or [meta.get("commit", "")])
        print(format_report(summarize_sets(data["runs"], meta), meta, f"{path}: {meta.get('version')} {commits}"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
