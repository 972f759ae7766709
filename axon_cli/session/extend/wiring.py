"""Everything extension files add to one session, loaded once when the runtime is built.

``load_extensions`` registers the Python tools and the ``skill`` tool (when there are skills) and
reads commands, agent definitions and the user's hooks; ``add_task_tool`` registers ``task`` once the session's parts exist. Problems (a
broken file, a failing SessionStart hook) are kept as ``notices``: the runtime emits them as Notice
events once the session is built (the bus keeps them until a frontend subscribes). Files waiting for trust are not
repeated here: ``axon run`` and the chat's trust screen already name every pending item.

``Extensions.changes`` (``trust.changes.SessionChanges``) is made here, when the session starts: which
files changed during this session. The hooks ask it before running outside the sandbox; the runtime
``bind``s the approver they ask and the sandbox they may run in instead.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from axon_cli.kernel.events import Approver, EventSink
from axon_cli.session.extend.agents import AgentDefinition, load_agents
from axon_cli.session.extend.commands import LoadedCommands, load_commands
from axon_cli.session.extend.pytool_loader import load_python_tools
from axon_cli.session.extend.skill_grants import SkillGrants
from axon_cli.session.extend.skills import load_skills
from axon_cli.session.extend.task_tool import task_spec
from axon_cli.settings.config import Settings
from axon_cli.settings.trust import TrustView
from axon_cli.settings.trust.changed_files import SessionChanges
from axon_cli.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from axon_cli.machinery.sandbox.outside import OutsideGate
    from axon_cli.session.extend.hook_seams import UserHooks
    from axon_cli.session.extend.session_parts import SessionParts
    from axon_cli.session.extend.skills import Skill

__all__ = ["Extensions", "load_extensions", "add_task_tool"]


@dataclass
class Extensions:
    commands: LoadedCommands = field(default_factory=LoadedCommands)
    agents: dict[str, AgentDefinition] = field(default_factory=dict)
    hooks: UserHooks | None = None
    notices: list[str] = field(default_factory=list)
    session_context: str = ""            # what SessionStart hooks added to the system prompt
    changes: SessionChanges = field(default_factory=SessionChanges)   # files changed during this session
    gate: OutsideGate | None = None      # what runs outside the sandbox (hooks, MCP servers, diagnostics)
    skills: dict[str, Skill] = field(default_factory=dict)
    skill_grants: SkillGrants = field(default_factory=SkillGrants)   # allowed-tools of skills loaded this turn

    def bind(self, approver: Callable[[], Approver | None], sandbox: str) -> None:
        """Who is asked before a hook runs a file changed during the session, and the sandbox mode it
        runs in when not approved ("off": none, the hook is skipped)."""
        if self.gate is not None:
            self.gate.approver, self.gate.sandbox = approver, sandbox

    def start_session(self, source: str) -> str:
        """Run the SessionStart hooks once ("startup" or "resume"); their context for the prompt."""
        if self.hooks is not None:
            context, problems = self.hooks.session_start(source)
            self.session_context = f"\n\n{context}" if context else ""
            self.notices.extend(problems)
        return self.session_context


def load_extensions(settings: Settings, project_root: Path, session_id: str, registry: ToolRegistry,
                    emit: EventSink, trust: TrustView) -> Extensions:
    from axon_cli.machinery.sandbox.outside import OutsideGate

    changes = SessionChanges()
    gate = OutsideGate(project_root, changes, emit=emit)
    tools = load_python_tools(project_root, trust, set(registry.names()))
    for spec in tools.specs:
        registry.register(spec)
    commands = load_commands(project_root, trust)
    agents = load_agents(project_root)
    hooks = None
    if any(settings.hooks.values()):        # the hook machinery loads only when hooks are configured
        from axon_cli.session.extend.hook_guard import HookGuard
        from axon_cli.session.extend.hook_runner import HookRunner
        from axon_cli.session.extend.hook_seams import UserHooks
        from axon_cli.tools.audit import AuditLog

        guard = HookGuard(project_root, [h for tables in settings.hooks.values() for h in tables], gate=gate)
        runner = HookRunner({str(k): v for k, v in settings.hooks.items()}, project_root, session_id,
                            AuditLog(project_root / ".axon", session_id), guard, list(settings.sandbox_hide))
        hooks = UserHooks(runner, emit)
    skills = load_skills(project_root, trust)
    grants = SkillGrants(emit)
    if skills.skills and registry.get("skill") is None:
        from axon_cli.session.extend.skill_tool import skill_spec

        registry.register(skill_spec(skills.skills, grants.grant))
    notices = tools.problems + commands.problems + agents.problems + skills.problems
    return Extensions(commands, agents.agents, hooks, notices, changes=changes, gate=gate, skills=skills.skills,
                      skill_grants=grants)


def add_task_tool(extensions: Extensions, parts: SessionParts) -> None:
    if parts.registry.get("task") is None:
        parts.registry.register(task_spec(parts, extensions.agents))
