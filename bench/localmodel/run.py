"""Run a chore set (``--set dev|test|all``) against a model server with one axon, per config, N repetitions; report and save.

    python bench/localmodel/run.py --base-url http://127.0.0.1:8011/v1 --model qwen \
        --config none text auto native --reps 3 --out results/after.json --axon .venv/bin/axon [--set test]

Each run: a fresh fixture project in a temp dir (git repo), ``.axon/config.toml`` for the config
(``none`` = no file at all), then ``axon run --output-format json --yes --max-turns N TASK`` with
``OPENAI_BASE_URL``/``AXON_MODEL`` and a throwaway HOME and XDG dirs, killed (its process group) after
``--timeout`` seconds. The checker judges the project's files and the JSON ``result``.
No ``--trust``: the keys written (tool_protocol, temperature, max_tokens, context_window) are not
widening (docs/permissions.md, "Trust"), so they apply in an untrusted folder, as for a user
following the docs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from chores import BY_NAME, SET_OF, Chore, build_fixture, chores_of, read_project  # noqa: E402
from summary import format_report, summarize, summarize_sets, write_json  # noqa: E402

PARTS = ("constrain", "whole_file", "attach")
# the ablations of issue 36: axon's defaults (as ``none``) without one part of the guidance, or all of them
WITHOUT = {f"without-{p}": [q for q in PARTS if q != p] for p in PARTS} | {"without-parts": []}
CONFIGS = ("none", "text", "auto", "native", *WITHOUT)


def config_toml(config: str, context_window: int) -> str | None:
    """The project's .axon/config.toml for a config: the recipe of docs/local-models.md with that protocol;
    for an ablation only ``guidance_parts``."""
    if config == "none":
        return None
    if config in WITHOUT:
        return f"guidance_parts = {json.dumps(WITHOUT[config])}\n"
    return (f'tool_protocol = "{config}"\ntemperature = 0.2\nmax_tokens = 1024\n'
            f"context_window = {context_window}\n")


def axon_env(base_url: str, model: str, home: Path, api_key: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AXON_", "XDG_"))}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_STATE_HOME": str(home / ".state"),
                "XDG_CACHE_HOME": str(home / ".cache"), "XDG_DATA_HOME": str(home / ".data"),
                "OPENAI_BASE_URL": base_url, "AXON_MODEL": model, "NO_COLOR": "1", "PYTHONUNBUFFERED": "1"})
    if api_key:
        env["OPENAI_API_KEY"] = api_key
    return env


def run_axon(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float) -> tuple[int | None, str, str, bool]:
    """Run axon in its own process group; on timeout SIGTERM the group, then SIGKILL. (code, out, err, timed_out)"""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        return proc.returncode, out, err, False
    except subprocess.TimeoutExpired:
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                break
            try:
                out, err = proc.communicate(timeout=wait)
                return None, out, err, True
            except subprocess.TimeoutExpired:
                continue
        out, err = proc.communicate()
        return None, out, err, True


def parse_result(stdout: str) -> dict[str, Any] | None:
    """The one JSON object ``--output-format json`` prints (the last line that parses as an object)."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict) and "result" in obj:
            return obj
    return None


def run_one(chore: Chore, config: str, rep: int, args: argparse.Namespace, axon: list[str], scratch: Path) -> dict:
    work = Path(tempfile.mkdtemp(prefix=f"{chore.name}-{config}-{rep}-", dir=scratch))
    root, home = work / "proj", work / "home"
    build_fixture(chore, root)
    home.mkdir()
    toml = config_toml(config, args.context_window)
    if toml is not None:
        (root / ".axon").mkdir()
        (root / ".axon" / "config.toml").write_text(toml)
    cmd = [*axon, "run", "--output-format", "json", "--yes", "--max-turns", str(args.max_turns)]
    cmd += ["--debug"] if args.debug else []
    started = time.monotonic()
    code, out, err, timed_out = run_axon([*cmd, chore.task], root, axon_env(args.base_url, args.model, home,
                                                                              args.api_key), args.timeout)
    seconds = time.monotonic() - started
    result = parse_result(out)
    answer = str(result.get("result") or "") if result else ""
    solved = chore.check(read_project(root), answer)
    error = "" if result and not result.get("is_error") else (answer or err.strip()[-600:] or out.strip()[-600:])
    if timed_out:
        error = f"timed out after {args.timeout:.0f} s"
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return {"config": config, "rep": rep, "set": SET_OF[chore.name], "chore": chore.name, "kind": chore.kind,
            "steps": chore.steps,
            "solved": solved, "turns": result.get("num_turns") if result else None, "seconds": round(seconds, 1),
            "exit_code": code, "timed_out": timed_out, "is_error": bool(result.get("is_error")) if result else None,
            "error": error, "answer": answer[:600], "usage": result.get("usage") if result else None,
            **({"dir": str(work)} if args.keep else {})}


def find_axon(path: str | None) -> list[str]:
    if path:
        return [str(Path(path).resolve())]
    here = Path(sys.executable).parent / "axon"
    found = str(here) if here.exists() else shutil.which("axon")
    if not found:
        raise SystemExit("no axon found: pass --axon PATH")
    return [found]


def describe_axon(axon: list[str]) -> dict[str, str]:
    version = subprocess.run([*axon, "--version"], capture_output=True, text=True).stdout.strip()
    info = {"axon": axon[0], "version": version}
    for parent in Path(axon[0]).parents:
        if (parent / ".git").exists():
            rev = subprocess.run(["git", "-C", str(parent), "rev-parse", "HEAD"], capture_output=True, text=True)
            dirty = subprocess.run(["git", "-C", str(parent), "status", "--porcelain", "--", "axon_cli"],
                                   capture_output=True, text=True).stdout.strip()
            info.update({"checkout": str(parent), "commit": rev.stdout.strip() + ("+dirty" if dirty else "")})
            break
    return info


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base-url", required=True, help="the model server, e.g. http://127.0.0.1:8011/v1")
    p.add_argument("--model", required=True, help="model name sent as AXON_MODEL (picks the tool prompt family)")
    p.add_argument("--config", nargs="+", choices=CONFIGS, default=["text"], help="one or more configs")
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--set", dest="chore_set", choices=("dev", "test", "all"), default="dev",
                   help="the development set (default; tune on it), the frozen test set, or both")
    p.add_argument("--only", nargs="+", choices=sorted(BY_NAME), metavar="NAME",
                   help="run only these chores (names from either set; --set is then ignored)")
    p.add_argument("--max-turns", type=int, default=8)
    p.add_argument("--timeout", type=float, default=300.0, help="seconds per axon run before it is killed")
    p.add_argument("--context-window", type=int, default=8192, help="the server's --n_ctx")
    p.add_argument("--out", type=Path, help="results JSON (written after every run)")
    p.add_argument("--axon", help="the axon executable to measure (default: the one beside this python)")
    p.add_argument("--api-key", default=None, help="OPENAI_API_KEY for the run (a local server needs none)")
    p.add_argument("--debug", action="store_true", help="pass --debug (with --keep: .axon/debug.log stays)")
    p.add_argument("--keep", action="store_true", help="keep each run's project dir")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    chores = [BY_NAME[n] for n in args.only] if args.only else chores_of(args.chore_set)
    axon = find_axon(args.axon)
    meta = {**describe_axon(axon), "base_url": args.base_url, "model": args.model, "configs": args.config,
            "reps": args.reps, "max_turns": args.max_turns, "timeout": args.timeout,
            "context_window": args.context_window, "chores": [c.name for c in chores],
            "set": "only" if args.only else args.chore_set,
            "sets": {s: [c.name for c in chores if SET_OF[c.name] == s] for s in ("dev", "test")},
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    print(f"{meta['version']} ({meta.get('commit', '?')[:10]}) · {meta['set']} set: {len(chores)} chores × "
          f"{len(args.config)} configs × {args.reps} reps", flush=True)
    runs: list[dict] = []
    scratch = Path(tempfile.mkdtemp(prefix="axon-localbench-"))
    try:
        for rep in range(1, args.reps + 1):
            for config in args.config:
                for chore in chores:
                    r = run_one(chore, config, rep, args, axon, scratch)
                    runs.append(r)
                    print(f"[rep {rep}/{args.reps}] {config:6} {r['set']:4} {chore.name:26} "
                          f"{'SOLVED' if r['solved'] else 'failed':6} {r['turns'] if r['turns'] is not None else '-':>2} "
                          f"turns {r['seconds']:6.1f} s exit {r['exit_code']}"
                          + (f"  ({r['error'][:80]!r})" if r["error"] else ""), flush=True)
                    if args.out:
                        write_json(args.out, {"meta": meta, "runs": runs})
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)
    summary, by_set = summarize(runs, len(chores)), summarize_sets(runs, meta)
    print(format_report(by_set, meta))
    if args.out:
        write_json(args.out, {"meta": meta, "runs": runs, "summary": summary, "by_set": by_set})
        print(f"results: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
