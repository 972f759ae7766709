"""Benchmark: resuming a 10,000-message session (load_transcript and open_session).

    python bench/bench_resume.py [messages]

Writes a synthetic transcript (user turns, assistant tool calls, ~1.5 KB tool results, a few
compactions) into a temporary project, then times loading it and opening the session from it.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from axon_cli.kernel.events import AutoApprover
from axon_cli.session.conversation.transcript import Transcript, load_transcript
from axon_cli.session.runtime.opening import open_session
from axon_cli.settings.config import load_settings


def write_session(state: Path, sid: str, n_messages: int) -> Path:
    t = Transcript(state, sid)
    t.meta("session", id=sid, started="2024-01-01T00:00:00")
    t.append({"role": "system", "content": "system prompt " * 200})
    count, turn = 1, 0
    while count < n_messages:
        turn += 1
        t.meta("turn", n=turn)
        t.append({"role": "user", "content": f"please do step {turn}"})
        call = {"id": f"c{turn}", "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps({"path": f"src/m{turn}.py"})}}
        t.append({"role": "assistant", "content": None, "tool_calls": [call]})
        t.append({"role": "tool", "tool_call_id": f"c{turn}", "content": f"{turn}: line of code\n" * 80})
        t.append({"role": "assistant", "content": f"done with step {turn}"})
        t.meta("usage", prompt_tokens=1000, completion_tokens=50)
        count += 4
    return t.path


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        project = Path(tmp)
        (project / ".git").mkdir()
        os.chdir(project)
        path = write_session(project / ".axon", "20240101-000000-bench0", n)
        size_mb = path.stat().st_size / 1e6
        t0 = time.perf_counter()
        loaded = load_transcript(path)
        t1 = time.perf_counter()
        settings = load_settings(project, flags={"api_key": "sk-bench", "base_url": "http://127.0.0.1:9/v1"}, env={})
        t2 = time.perf_counter()
        rt = open_session(settings, project, AutoApprover(), cont=True)
        t3 = time.perf_counter()
        rt.close()
        print(f"transcript: {len(loaded.messages):,} messages, {size_mb:.1f} MB")
        print(f"load_transcript: {(t1 - t0) * 1000:.0f} ms")
        print(f"open_session(cont=True): {(t3 - t2) * 1000:.0f} ms (runtime build included)")


if __name__ == "__main__":
    main()
