"""``CLAUDE_ENV_FILE``: environment variables SessionStart hooks set for the session's shell commands.

Claude Code hands its SessionStart hooks a file to append ``export NAME=value`` lines to, and every
later Bash command starts with those variables (a hook that activates a toolchain, or points
``PATH`` at a project's bin folder). Here the file lives in axon's user state dir, outside the
project, so nothing the sandboxed model writes can reach it; and it is *read*, never sourced:
``export NAME=value`` / ``NAME=value`` lines (quotes removed, ``$NAME`` and ``${NAME}`` expanded
from what is set so far) become variables, any other line is skipped — so a line in that file can
set a variable but never run a command. Each variable is admitted like the rest of axon's
environment (``sandbox.child_env.admit``: no credentials, no URL userinfo).
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from axon_cli.kernel.state import user_state_dir
from axon_cli.machinery.sandbox.child_env import admit

__all__ = ["env_file", "read_env_file"]

MAX_BYTES = 64 * 1024
_ASSIGN = re.compile(r"^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$")
_REF = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def env_file(session_id: str) -> Path:
    """The session's env file (created empty, its folder private)."""
    folder = user_state_dir() / "session-env"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = folder / f"{re.sub(r'[^A-Za-z0-9_.-]', '_', session_id)}.sh"
    path.touch(mode=0o600, exist_ok=True)
    return path


def read_env_file(path: Path, base: dict[str, str]) -> dict[str, str]:
    """The variables the file sets, ``base`` used to expand references ({} for a missing or
    unreadable file)."""
    try:
        text = path.read_bytes()[:MAX_BYTES].decode("utf-8", "replace")
    except OSError:
        return {}
    seen = dict(base)
    out: dict[str, str] = {}
    for line in text.splitlines():
        match = _ASSIGN.match(line.strip())
        if match is None:
            continue
        name, raw = match.groups()
        value = _value(raw, seen)
        if value is None or (value := admit(name, value)) is None:
            continue
        seen[name] = out[name] = value
    return out


def _value(raw: str, env: dict[str, str]) -> str | None:
    """One shell word: single quotes literal, anything else with ``$NAME`` expanded; None when it is
    not one word (a command substitution, several words)."""
    if "$(" in raw or "`" in raw:
        return None
    try:
        words = shlex.split(raw, comments=True, posix=True)
    except ValueError:
        return None
    if len(words) > 1:
        return None
    word = words[0] if words else ""
    if raw.lstrip().startswith("'"):
        return word
    return _REF.sub(lambda m: env.get(m.group(1) or m.group(2), ""), word)
