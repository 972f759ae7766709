"""The rows of ``bench/run`` (each returns a row or a note line; see run_all.py)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench_first_request import measure
from bench_search import make_tree

from tests.fakeserver import Reply, ScriptedServer, text_reply, tool_reply

__all__ = ["run_hi_row", "chat_prompt_row", "bash_row", "tree_rows", "turns_row", "rss_row", "ctrl_c_row",
           "first_request_tokens"]

BENCH = Path(__file__).resolve().parent
LINE = "0123456789 the quick brown fox jumps over the lazy dog; build step ok [100%]"
BASH_100M = f"yes '{LINE}' | head -c 100M"


class _Always(ScriptedServer):
    """Answers every request with the same short text."""

    def _next(self, body: dict[str, Any], path: str, headers: dict[str, str]) -> Reply:
        super()._next(body, path, headers)
        return text_reply("hello")


def _project(tmp: Path, url: str) -> tuple[Path, dict[str, str]]:
    project, home = tmp / "proj", tmp / "home"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AXON_"))}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
                "OPENAI_BASE_URL": url, "OPENAI_API_KEY": "sk-bench", "AXON_MODEL": "m"})
    return project, env


def run_hi_row(axon: list[str], runs: int, tmp: Path, alternate: Callable[..., list[float]]) -> tuple:
    with _Always() as server:
        project, env = _project(tmp, server.url)
        t_openai, t_run = alternate([[sys.executable, "-c", "import openai"], [*axon, "run", "hi"]], runs, env, project)
    return ("`axon run hi` (scripted local server)", t_run, '`python -c "import openai"`', t_openai, "s", 1.15)


def _time_to_prompt(axon: list[str], env: dict[str, str], project: Path) -> float:
    """Seconds from starting ``axon chat`` in a pseudo-terminal until its prompt is on screen."""
    import pexpect

    started = time.perf_counter()
    child = pexpect.spawn(axon[0], [*axon[1:], "chat"], cwd=str(project), env=env, dimensions=(40, 120),
                          encoding="utf-8", codec_errors="replace")
    try:
        child.expect("› ", timeout=120)
        return time.perf_counter() - started
    finally:
        child.terminate(force=True)


def chat_prompt_row(axon: list[str], runs: int, tmp: Path) -> tuple:
    """``axon chat`` until its prompt is on screen (a pty) vs importing prompt_toolkit and rich."""
    project, env = _project(tmp, "http://127.0.0.1:9/v1")      # nothing is sent before the prompt
    env.update({"TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1"})
    _time_to_prompt(axon, env, project)                          # the first run writes the state dir
    base = [sys.executable, "-c", "import prompt_toolkit, rich"]
    t_chat, t_base = [], []
    for _ in range(runs):
        t_chat.append(_time_to_prompt(axon, env, project))
        t = time.perf_counter()
        subprocess.run(base, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, check=False)
        t_base.append(time.perf_counter() - t)
    return ("`axon chat` until its prompt is on screen (pty)", statistics.median(t_chat),
            '`python -c "import prompt_toolkit, rich"`', statistics.median(t_base), "s", 2.0)


def first_request_tokens(axon: list[str]) -> str:
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer([text_reply("ok")]) as server:
        project, env = _project(Path(tmp), server.url)
        subprocess.run([*axon, "run", "hi"], cwd=project, env=env, capture_output=True, timeout=120, check=False)
        m = measure(server.requests[0].body)
    return (f"First request (default profile, native tools): ≈ {m['total']} tokens "
            f"(system {m['system']}, {m['n_tools']} tool schemas {m['tools']}; chars/4).")


def bash_row(runs: int) -> list[tuple]:
    """The ``bash`` tool printing 100 MB (masked, head and tail kept, the whole output spilled to a
    file) against the same command ``> /dev/null`` (the issue's row) and against the shell writing
    the output to a file itself (what keeping the whole output on disk costs this machine); and,
    for scale, what merely reading the output through a pipe costs (``| dd of=/dev/null``)."""
    from axon_cli.machinery.sandbox import resolve
    from axon_cli.settings.config import Settings
    from axon_cli.tools.dispatch import Dispatcher, ToolCall
    from axon_cli.tools.registry import ToolRegistry
    from axon_cli.tools.spec import ToolContext

    tool: list[float] = []
    devnull: list[float] = []
    to_file: list[float] = []
    read_only: list[float] = []
    for i in range(runs + 1):
        root = Path(tempfile.mkdtemp(prefix="axon-bench-bash-"))
        try:
            ctx = ToolContext(project_root=root, state_dir=root / ".axon", session_id="b", settings=Settings())
            dispatcher = Dispatcher(ToolRegistry.with_builtins(resolve(ctx.settings.sandbox)), ctx)
            t = time.perf_counter()
            dispatcher.dispatch(ToolCall(f"b{i}", "bash", json.dumps({"command": BASH_100M, "timeout": 600})))
            elapsed = time.perf_counter() - t
            t = time.perf_counter()
            subprocess.run(["bash", "-c", BASH_100M + " > /dev/null"], check=False)
            t_null = time.perf_counter() - t
            t = time.perf_counter()
            subprocess.run(["bash", "-c", f"{BASH_100M} > {root / 'out.txt'}"], check=False)
            t_file = time.perf_counter() - t
            t = time.perf_counter()
            subprocess.run(["bash", "-c", f"{BASH_100M} | dd of=/dev/null bs=1M iflag=fullblock status=none"],
                           check=False)
            t_read = time.perf_counter() - t
        finally:
            shutil.rmtree(root, ignore_errors=True)
        if i:                                   # the first round warms up (imports, first spawn)
            tool.append(elapsed)
            devnull.append(t_null)
            to_file.append(t_file)
            read_only.append(t_read)
    t_tool = statistics.median(tool)
    return [("bash printing 100 MB (in the tool: mask + spill)", t_tool,
             "the command `> /dev/null`", statistics.median(devnull), "s", 3.0),
            ("bash printing 100 MB, the same", t_tool,
             "the command `> file` (the shell writing it to disk)", statistics.median(to_file), "s", 1.3),
            ("(for scale) reading the output in C, keeping nothing", statistics.median(read_only),
             "the command `> /dev/null`", statistics.median(devnull), "s", None)]


def tree_rows(runs: int, tmp: Path) -> list[tuple]:
    from axon_cli.kernel.ripgrep_path import find_rg
    from axon_cli.settings.config import Settings
    from axon_cli.tools.builtin.search.search_tools import SearchFilesInput, list_paths, search
    from axon_cli.tools.spec import ToolContext

    root = tmp / "tree"
    root.mkdir()
    make_tree(root, 50_000)
    rg = find_rg()
    assert rg, "ripgrep is needed for this row"
    ctx = ToolContext(project_root=root, state_dir=root / ".axon", session_id="b", settings=Settings())
    timings: dict[str, list[float]] = {"list": [], "rg_files": [], "search": [], "rg_n": []}
    for _ in range(runs):
        for name, fn in (("list", lambda: list_paths(ctx, ".", None)),
                         ("rg_files", lambda: subprocess.run([rg, "--files"], cwd=root, stdout=subprocess.DEVNULL)),
                         ("search", lambda: search(ctx, SearchFilesInput(pattern="NEEDLE"))),
                         ("rg_n", lambda: subprocess.run([rg, "-n", "NEEDLE"], cwd=root, stdout=subprocess.DEVNULL))):
            t = time.perf_counter()
            fn()
            timings[name].append(time.perf_counter() - t)
    med = {k: statistics.median(v) for k, v in timings.items()}
    (root / ".git").rename(tmp / "moved-git")            # the same tree outside git
    outside: dict[str, list[float]] = {"list": [], "rg_files": []}
    for _ in range(runs):
        for name, fn in (("list", lambda: list_paths(ctx, ".", None)),
                         ("rg_files", lambda: subprocess.run([rg, "--files"], cwd=root, stdout=subprocess.DEVNULL))):
            t = time.perf_counter()
            fn()
            outside[name].append(time.perf_counter() - t)
    return [("`list_files` on a 50,000-file git tree", med["list"], "`rg --files`", med["rg_files"], "s", 1.3),
            ("`list_files` on the same tree outside git", statistics.median(outside["list"]), "`rg --files`",
             statistics.median(outside["rg_files"]), "s", 1.3),
            ("`search_files` on the same tree", med["search"], "`rg -n NEEDLE`", med["rg_n"], "s", 1.3)]


_REPLAY = """
import json, sys, openai
bodies = json.load(open(sys.argv[1]))
client = openai.OpenAI(max_retries=0)
for body in bodies:
    body = {k: v for k, v in body.items() if k != "stream"}
    for _ in client.chat.completions.create(stream=True, **body):
        pass
"""


def turns_row(axon: list[str], runs: int, tmp: Path) -> tuple:
    """200 read_file turns through ``axon run`` vs the raw SDK sending the same 201 requests. Each
    call reads another 50-line window (identical calls would be refused from the third: repeats.py)."""
    script = [tool_reply(("read_file", {"path": "a.txt", "offset": i + 1, "limit": 50})) for i in range(200)]
    script.append(text_reply("done"))
    with ScriptedServer() as server:
        project, env = _project(tmp, server.url)
        (project / "a.txt").write_text("".join(f"line {i}\n" for i in range(250)))
        bodies_file = tmp / "bodies.json"
        t_axon, t_sdk = [], []
        for _ in range(runs):
            server.requests.clear()
            server.add(*script)
            t = time.perf_counter()
            subprocess.run([*axon, "run", "read a.txt 200 times", "--yes", "--max-turns", "300"], cwd=project,
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            t_axon.append(time.perf_counter() - t)
            if len(server.requests) != len(script):
                raise RuntimeError(f"axon sent {len(server.requests)} requests, not {len(script)}: the row is void")
            bodies_file.write_text(json.dumps([r.body for r in server.requests]))
            server.add(*script)
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", _REPLAY, str(bodies_file)], cwd=project, env=env, check=False)
            t_sdk.append(time.perf_counter() - t)
    return ("200 scripted `read_file` turns", statistics.median(t_axon), "raw openai SDK, same 201 requests",
            statistics.median(t_sdk), "s", 0.5)


def rss_row() -> str:
    out = subprocess.run([sys.executable, str(BENCH / "bench_bash_memory.py"), "--mib", "1024"],
                         capture_output=True, text=True, check=False).stdout
    peak = re.search(r"peak, big command: ([\d.]+) MB", out)
    speed = re.search(r"time:\s+(.*)", out)
    return (f"Peak RSS while bash prints 1 GiB: {peak.group(1) if peak else '?'} MB (goal ≤ 100 MB); "
            f"{speed.group(1) if speed else ''}.")


def ctrl_c_row(axon: list[str], runs: int, tmp: Path) -> str:
    """Ctrl-C (SIGINT) while the bash tool runs a command: time until axon has exited."""
    latencies = []
    with ScriptedServer() as server:
        project, env = _project(tmp, server.url)
        for _ in range(runs):
            marker = project / "started"
            marker.unlink(missing_ok=True)
            server.add(tool_reply(("bash", {"command": "touch started; sleep 60"})), text_reply("done"))
            proc = subprocess.Popen([*axon, "run", "go", "--yes"], cwd=project, env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
            deadline = time.monotonic() + 60
            while not marker.exists() and time.monotonic() < deadline:
                time.sleep(0.005)
            t = time.perf_counter()
            proc.send_signal(signal.SIGINT)
            proc.wait(60)
            latencies.append(time.perf_counter() - t)
    return (f"Ctrl-C while a command runs: axon exits after {statistics.median(latencies) * 1000:.0f} ms "
            f"(median of {runs}; no goal).")
