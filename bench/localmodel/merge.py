"""Merge results files of one side (the same chores) into one: repetitions renumbered per config, in order.

    python bench/localmodel/merge.py results/after-text.json part1.json part2.json

The first path is the output (it may also be one of the inputs). Each run keeps its source file's
axon commit in `commit`; `meta.commits` lists them all, `meta.parts` each part's start time. Files with
different chore sets, or a part already in the merge (merged twice), are refused.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from summary import format_report, summarize, summarize_sets, write_json


def merge(parts: list[dict[str, Any]]) -> dict[str, Any]:
    """One results dict from several: per config, each part's repetitions follow the previous part's."""
    if not parts:
        raise ValueError("nothing to merge")
    chores = parts[0]["meta"]["chores"]
    runs: list[dict[str, Any]] = []
    last_rep: dict[str, int] = {}
    started: list[str] = []
    for part in parts:
        if part["meta"]["chores"] != chores:
            raise ValueError("the files cover different chores; merge only runs of the same set")
        stamps = part["meta"].get("parts") or [part["meta"].get("started", "?")]
        if set(stamps) & set(started):
            raise ValueError(f"a run started at {stamps[0]} is already in the merge; merging it twice would count it twice")
        started += stamps
        offset = dict(last_rep)
        commit = part["meta"].get("commit", "?")
        for run in part["runs"]:
            rep = run["rep"] + offset.get(run["config"], 0)
            runs.append({**run, "rep": rep, "commit": run.get("commit", commit)})
            last_rep[run["config"]] = max(last_rep.get(run["config"], 0), rep)
    meta = {**parts[0]["meta"], "configs": list(dict.fromkeys(r["config"] for r in runs)),
            "reps": max(last_rep.values(), default=0),
            "commits": list(dict.fromkeys(r["commit"] for r in runs)), "parts": started}
    return {"meta": meta, "runs": runs, "summary": summarize(runs, len(chores)), "by_set": summarize_sets(runs, meta)}


def main(argv: list[str]) -> int:
    if len(argv) < 2:
        print("usage: merge.py OUT IN [IN ...]", file=sys.stderr)
        return 2
    out, inputs = Path(argv[0]), [Path(p) for p in argv[1:]]
    try:
        merged = merge([json.loads(p.read_text()) for p in inputs])
    except (OSError, ValueError, KeyError) as exc:
        print(f"merge.py: {exc}", file=sys.stderr)
        return 1
    write_json(out, merged)
    print(format_report(merged["by_set"], merged["meta"], f"{out} (merged)"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
