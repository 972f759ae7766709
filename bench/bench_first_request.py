"""Measure the first request axon sends: system prompt + tool schemas, in tokens (chars/4).

Runs the real ``axon run`` against the scripted server once per tool protocol and prompt profile
and prints a table. No real model is needed.

    python bench/bench_first_request.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.fakeserver import ScriptedServer, text_reply  # noqa: E402

__all__ = ["first_request", "measure", "main"]


def measure(body: dict[str, Any]) -> dict[str, int]:
    """Token estimates (chars/4) of the system prompt, the tools field, and both."""
    system = "".join(m.get("content") or "" for m in body.get("messages", []) if m.get("role") == "system")
    tools = json.dumps(body["tools"]) if body.get("tools") else ""
    return {"system": len(system) // 4, "tools": len(tools) // 4, "total": (len(system) + len(tools)) // 4,
            "n_tools": len(body.get("tools") or [])}


def first_request(protocol: str, profile: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer([text_reply("ok")]) as server:
        project = Path(tmp) / "proj"
        (project / ".git").mkdir(parents=True)
        home = Path(tmp) / "home"
        (project / ".axon").mkdir()
        (project / ".axon" / "config.toml").write_text(f'prompt_profile = "{profile}"\n')
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AXON_"))}
        env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
                    "OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-bench", "AXON_MODEL": "m"})
        axon = Path(sys.executable).parent / "axon"
        cmd = [str(axon)] if axon.exists() else [sys.executable, "-m", "axon_cli"]
        proc = subprocess.run([*cmd, "run", "hi", "--tool-protocol", protocol], cwd=project, env=env,
                              capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            raise SystemExit(f"axon failed: {proc.stderr}")
        return server.requests[0].body


def main() -> None:
    print(f"{'protocol':<8} {'profile':<8} {'system':>7} {'tools':>7} {'total':>7} {'n_tools':>7}")
    for protocol in ("native", "text", "auto"):
        for profile in ("default", "compact"):
            m = measure(first_request(protocol, profile))
            print(f"{protocol:<8} {profile:<8} {m['system']:>7} {m['tools']:>7} {m['total']:>7} {m['n_tools']:>7}")


if __name__ == "__main__":
    main()
