"""axon as a Harbor installed agent: ``harbor run --agent axon_cli.app.fleet.harbor_agent:AxonAgent``.

Harbor (``pip install harbor``, Python >= 3.12) imports this module; axon itself never does, and
Harbor is not one of axon's dependencies. ``setup`` installs axon in the task environment (python3,
bubblewrap and ripgrep by apt-get where it exists, failures tolerated; then a venv with
``$AXON_INSTALL_SPEC``, default the PyPI package); ``run`` runs ``axon run --output-format json
--trust --yes --mode auto --sandbox auto`` on the instruction in the task's workdir, with
``OPENAI_BASE_URL``/``OPENAI_API_KEY``/``AXON_MODEL`` from ``--ae`` or the host environment and
Harbor's ``--model provider/name`` as the model. The JSON result lands in the agent logs dir
(``axon.json``); its token usage goes back to Harbor's context after the run.

Agent kwargs (``--ak``): ``install_spec`` (over ``$AXON_INSTALL_SPEC``), ``venv`` (default
``$HOME/.axon-venv``), ``sandbox`` (default ``auto``), ``max_turns``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from harbor.agents.installed.base import BaseInstalledAgent, with_prompt_template
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

from axon_cli.app.fleet.harbor_commands import (
    DEFAULT_VENV,
    install_command,
    read_result,
    run_command,
    run_env,
    system_packages_command,
    usage_of,
)

__all__ = ["AxonAgent"]


class AxonAgent(BaseInstalledAgent):  # type: ignore[misc]
    """Installs axon in the environment and runs one ``axon run`` per trial."""

    def __init__(self, logs_dir: Path, *args: Any, install_spec: str | None = None, venv: str = DEFAULT_VENV,
                 sandbox: str = "auto", max_turns: int | None = None, **kwargs: Any) -> None:
        super().__init__(logs_dir, *args, **kwargs)
        self._install_spec = install_spec
        self._venv = venv
        self._sandbox = sandbox
        self._max_turns = int(max_turns) if max_turns else None

    @staticmethod
    def name() -> str:
        return "axon"

    def get_version_command(self) -> str | None:
        return f'"{self._venv}/bin/axon" --version'

    def parse_version(self, stdout: str) -> str:
        return stdout.strip().removeprefix("axon").strip()

    async def install(self, environment: BaseEnvironment) -> None:
        await self.exec_as_root(environment, command=system_packages_command())
        spec = self._install_spec or self._get_env("AXON_INSTALL_SPEC")
        await self.exec_as_agent(environment, command=install_command(self._venv),
                                 env={"AXON_INSTALL_SPEC": spec} if spec else None)

    @with_prompt_template  # type: ignore[misc]
    async def run(self, instruction: str, environment: BaseEnvironment, context: AgentContext) -> None:
        source = {name: value for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "AXON_MODEL")
                  if (value := self._get_env(name))}
        command = run_command(str(self.environment_logs_dir), self._venv, self._sandbox, self._max_turns)
        await self.exec_as_agent(environment, command=command,
                                 env=run_env(instruction, self.model_name, source))

    def populate_context_post_run(self, context: AgentContext) -> None:
        result = read_result(self.logs_dir)
        if result is None:
            return
        context.n_input_tokens, context.n_output_tokens = usage_of(result)
        if isinstance(result.get("cost_usd"), (int, float)):
            context.cost_usd = float(result["cost_usd"])
        context.metadata = {**(context.metadata or {}),
                            **{key: result[key] for key in ("session_id", "num_turns", "is_error", "duration_ms")
                               if key in result}}
