"""A stand-in for the few parts of Harbor 0.25 that ``AxonAgent`` touches, for machines where Harbor
cannot be installed (it needs Python >= 3.12 and brings litellm, supabase, fastapi, …).

The names and signatures are Harbor's (``harbor.agents.installed.base.BaseInstalledAgent``: the
constructor's ``logs_dir``/``model_name``/``extra_env``/``environment_logs_dir``, ``_get_env`` with
``--ae`` values over the host's, ``exec_as_root``/``exec_as_agent`` running
``set -o pipefail; CMD`` through ``environment.exec`` and raising on a non-zero exit;
``with_prompt_template``; ``AgentContext``'s token fields). ``LocalEnvironment`` is a task
environment that is a directory: ``exec`` runs bash there.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

MODULES = {
    "harbor/__init__.py": "",
    "harbor/agents/__init__.py": "",
    "harbor/agents/installed/__init__.py": "",
    "harbor/environments/__init__.py": "",
    "harbor/models/__init__.py": "",
    "harbor/models/agent/__init__.py": "",
    "harbor/environments/base.py": "class BaseEnvironment:\n    default_user = None\n",
    "harbor/models/agent/context.py": '''
from typing import Any
from pydantic import BaseModel

class AgentContext(BaseModel):
    n_input_tokens: int | None = None
    n_cache_tokens: int | None = None
    n_output_tokens: int | None = None
    cost_usd: float | None = None
    metadata: dict[str, Any] | None = None
''',
    "harbor/agents/installed/base.py": '''
import os
from pathlib import Path, PurePosixPath

def with_prompt_template(fn):
    return fn

class BaseInstalledAgent:
    def __init__(self, logs_dir, model_name=None, logger=None, mcp_servers=None, skills_dir=None, *,
                 extra_env=None, environment_logs_dir=None, **kwargs):
        self.logs_dir = Path(logs_dir)
        self.model_name = model_name
        self.environment_logs_dir = environment_logs_dir or PurePosixPath("/logs/agent")
        self._extra_env = dict(extra_env or {})

    def _get_env(self, key):
        for source in (self._extra_env, os.environ):
            if key in source:
                return source[key]
        return None

    async def _exec(self, environment, command, user=None, env=None, cwd=None, timeout_sec=None):
        result = await environment.exec(command=f"set -o pipefail; {command}", user=user, env=env, cwd=cwd,
                                        timeout_sec=timeout_sec)
        if result.return_code != 0:
            raise RuntimeError(f"Command failed (exit {result.return_code}): {result.stderr}")
        return result

    async def exec_as_root(self, environment, command, env=None, cwd=None, timeout_sec=None):
        return await self._exec(environment, command, user="root", env=env, cwd=cwd, timeout_sec=timeout_sec)

    async def exec_as_agent(self, environment, command, env=None, cwd=None, timeout_sec=None):
        return await self._exec(environment, command, env=env, cwd=cwd, timeout_sec=timeout_sec)
''',
}


def write_stub(root: Path) -> Path:
    for name, text in MODULES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@dataclass
class ExecResult:
    return_code: int
    stdout: str
    stderr: str


class LocalEnvironment:
    """``exec`` runs the command with bash in ``workdir`` (or only records it, with ``dry``)."""

    def __init__(self, workdir: Path, base_env: dict[str, str], dry: bool = False) -> None:
        self.workdir, self.base_env, self.dry = workdir, base_env, dry
        self.calls: list[dict[str, object]] = []

    async def exec(self, command: str, user: str | int | None = None, env: dict[str, str] | None = None,
                   cwd: str | None = None, timeout_sec: int | None = None) -> ExecResult:
        self.calls.append({"command": command, "user": user, "env": dict(env or {})})
        if self.dry:
            return ExecResult(0, "", "")
        proc = subprocess.run(["bash", "-c", command], cwd=cwd or self.workdir, env={**self.base_env, **(env or {})},
                              capture_output=True, text=True, timeout=timeout_sec or 120, stdin=subprocess.DEVNULL)
        return ExecResult(proc.returncode, proc.stdout, proc.stderr)
