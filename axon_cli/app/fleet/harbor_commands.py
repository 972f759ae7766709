"""The shell commands the Harbor adapter runs in a task environment, as plain strings.

Kept apart from ``harbor_agent.py`` so they can be built, read and executed without Harbor installed
(the tests run them with bash against a scripted server). Everything a command needs from outside —
the task, the endpoint, the key — reaches it as an environment variable, never spliced into the
script, so no task text can break out of its quoting.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["DEFAULT_INSTALL_SPEC", "DEFAULT_VENV", "RESULT_FILE", "STDERR_FILE", "ENDPOINT_VARS",
           "system_packages_command", "install_command", "run_command", "run_env", "axon_model_name",
           "read_result", "usage_of"]

DEFAULT_INSTALL_SPEC = "axon-cli"            # the PyPI name in pyproject.toml
DEFAULT_VENV = "$HOME/.axon-venv"            # expanded by the shell in the environment
RESULT_FILE = "axon.json"                    # `axon run --output-format json`'s stdout, in the logs dir
STDERR_FILE = "axon.stderr.txt"              # its progress lines and notices
ENDPOINT_VARS = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "AXON_MODEL")
MAX_TURNS_EXIT = 3                           # `axon run` stopped at --max-turns: an outcome, not a crash


def system_packages_command() -> str:
    """Root step: python3 with venv, bubblewrap and ripgrep where apt-get exists. Optional: a failure
    is reported on stderr and tolerated (the image may already have python, and axon ships ripgrep)."""
    packages = "python3 python3-venv python3-pip bubblewrap ripgrep ca-certificates"
    return ("if command -v apt-get >/dev/null 2>&1; then "
            "{ export DEBIAN_FRONTEND=noninteractive; apt-get update -qq "
            f"&& apt-get install -y -qq --no-install-recommends {packages}; }} >/dev/null 2>&1 "
            "|| echo 'axon install: apt-get could not install the optional packages' >&2; "
            "fi; true")


def install_command(venv: str = DEFAULT_VENV) -> str:
    """Agent step: a venv with axon in it, from ``$AXON_INSTALL_SPEC`` (a PyPI requirement, a pinned
    version, a wheel, a git URL or a local checkout; default the PyPI name)."""
    return ("set -eu; "
            f'venv="{venv}"; spec="${{AXON_INSTALL_SPEC:-{DEFAULT_INSTALL_SPEC}}}"; '
            'python3 -m venv "$venv"; '
            '"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$spec"; '
            '"$venv/bin/axon" --version')


def run_command(logs_dir: str, venv: str = DEFAULT_VENV, sandbox: str = "auto", max_turns: int | None = None) -> str:
    """Agent step: ``axon run`` on ``$AXON_TASK`` in the current directory (the task's workdir); the
    JSON result and the progress lines go to ``logs_dir``. Exit code: axon's own, except that reaching
    the turn limit counts as done (the verifier judges the files)."""
    logs = shlex.quote(logs_dir)
    turns = f" --max-turns {int(max_turns)}" if max_turns else ""
    return (f'mkdir -p {logs}; venv="{venv}"; '
            '"$venv/bin/axon" run --output-format json --trust --yes --mode auto '
            f'--sandbox {shlex.quote(sandbox)}{turns} -- "$AXON_TASK" '
            f'> {logs}/{RESULT_FILE} 2> {logs}/{STDERR_FILE}; code=$?; '
            f'if [ "$code" -ne 0 ]; then tail -c 4000 {logs}/{STDERR_FILE} >&2; fi; '
            f'if [ "$code" -eq {MAX_TURNS_EXIT} ]; then code=0; fi; exit "$code"')


def axon_model_name(harbor_model: str | None) -> str | None:
    """Harbor's ``--model provider/name`` to the name the endpoint serves: the provider prefix goes
    (``openai/gpt-4.1`` → ``gpt-4.1``, ``openai/Qwen/Qwen3-8B`` → ``Qwen/Qwen3-8B``)."""
    if not harbor_model:
        return None
    _, sep, rest = harbor_model.partition("/")
    return rest if sep and rest else harbor_model


def run_env(task: str, harbor_model: str | None, source: Mapping[str, str]) -> dict[str, str]:
    """The run step's environment: the task, and the endpoint from ``source`` (Harbor's ``--ae``
    values over the host's environment); ``--model`` from Harbor wins over ``AXON_MODEL``."""
    env = {name: source[name] for name in ENDPOINT_VARS if source.get(name)}
    model = axon_model_name(harbor_model)
    if model:
        env["AXON_MODEL"] = model
    env["AXON_TASK"] = task
    return env


def read_result(logs_dir: Path) -> dict[str, Any] | None:
    """The run's JSON result from the logs Harbor copied back, or None (missing, empty, not an object)."""
    try:
        data = json.loads((logs_dir / RESULT_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def usage_of(result: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """(input tokens, output tokens) of a result, None where it has no such number."""
    usage = result.get("usage")
    if not isinstance(usage, Mapping):
        return None, None
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    return (prompt if isinstance(prompt, int) else None, completion if isinstance(completion, int) else None)
