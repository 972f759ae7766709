"""The deferred ``task(description, prompt, agent?)`` tool: hand a self-contained job to a sub-agent.

Only the sub-agent's final answer (with its usage) comes back, so a search across many files costs
the parent one tool result instead of every file it read. The tool itself changes nothing (the
sub-agent's calls are checked one by one), so it is read-only and several ``task`` calls in one
reply run at the same time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict, Field

from axon_cli.session.extend.agents import GENERAL, AgentDefinition
from axon_cli.tools.spec import ToolContext, ToolError, ToolOutput, ToolSpec

if TYPE_CHECKING:
    from axon_cli.session.extend.session_parts import SessionParts

__all__ = ["TaskInput", "task_spec", "SHORT_DESCRIPTION"]

SHORT_DESCRIPTION = "Hand a self-contained task to a sub-agent; get back only its answer"

DESCRIPTION = """Start a sub-agent for a self-contained task and get back only its final answer.
Use it for research that would read many files (how is X used across the code? where is Y
configured?), or for a focused second opinion, to keep your own context small. The sub-agent has
its own context and cannot see this conversation: the prompt must say everything it needs (what to
find, where to look, what to report). By default it has read-only tools (read_file, list_files,
search_files). Several task calls in one reply run at the same time."""


class TaskInput(BaseModel):
    model_config = ConfigDict(extra="forbid")
    description: str = Field(min_length=1, max_length=80, description="a short label (3-5 words) shown to the user")
    prompt: str = Field(min_length=1, description="the complete task; the sub-agent sees nothing else")
    agent: str | None = Field(None, description="which sub-agent to run (default: general)")


def _describe(agents: dict[str, AgentDefinition]) -> str:
    lines = "\n".join(f"- {a.name}: {a.description}" for a in agents.values())
    return f"{DESCRIPTION}\nAgents:\n{lines}"


def task_spec(parts: SessionParts, agents: dict[str, AgentDefinition]) -> ToolSpec[Any]:
    def handler(tool_input: TaskInput, ctx: ToolContext) -> ToolOutput:
        definition = agents.get(tool_input.agent or GENERAL.name)
        if definition is None:
            raise ToolError(f"unknown agent {tool_input.agent!r}; the agents are: {', '.join(agents)}")
        # the sub-agent machinery loads when task runs
        from axon_cli.session.extend.subagent import run_subagent

        return run_subagent(parts, definition, tool_input.prompt, tool_input.description,
                            ctx.call.call_id or "task")

    return ToolSpec(
        name="task", description=_describe(agents), input_model=TaskInput, handler=handler, category="other",
        is_read_only=lambda _input: True, is_concurrency_safe=lambda _input: True,
        summarize=lambda tool_input: tool_input.description, deferred=True, max_result_chars=30_000,
        short_description=SHORT_DESCRIPTION,
        source="builtin")
