"""Before a hook runs outside the sandbox: did a file it runs change during this session?

The decision is the session's ``OutsideGate``'s (``sandbox.outside``): a hook whose files axon cannot
tell (``cd``, variables, unknown interpreter flags …) is asked about before every run. Hooks run
outside the sandbox, so a hook whose script (``sh scripts/post-check.sh``) or build file
(``make lint`` → Makefile, ``pytest`` → conftest.py; see ``settings/trust/pins``) the model rewrote inside the
sandbox would run the model's code outside it. When one of those files changed since the session
started, the approver is asked first, naming the file; approved, the hook runs as usual (and that
content counts as approved for the rest of the session). Not approved (``axon run`` without
``--yes`` answers no): the hook runs *inside* the session's sandbox when there is one, so a guard
still guards; without a sandbox it does not run, and a PreToolUse hook that did not run blocks the
call it would have judged (fail closed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from axon_cli.kernel.events import Approver, EventSink, null_sink
from axon_cli.machinery.sandbox.outside import Launch, OutsideGate
from axon_cli.settings.config import HookConfig
from axon_cli.settings.trust.changed_files import SessionChanges

__all__ = ["HookGuard", "Placement", "OUTSIDE"]


@dataclass(frozen=True)
class Placement:
    sandbox: str = "off"      # off: outside, as hooks always run; else the sandbox mode it runs in
    skipped: str = ""         # why it does not run at all ("" = it runs)


OUTSIDE = Placement()


def hook_label(event: str, hook: HookConfig) -> str:
    command = " ".join(hook.command.split())
    return f"{event} hook `{command[:60]}{'…' if len(command) > 60 else ''}`"


class HookGuard:
    """The hooks' side of the session's ``OutsideGate`` (``sandbox.outside``), which decides."""

    def __init__(self, project_root: Path, hooks: Iterable[HookConfig], changes: SessionChanges | None = None,
                 sandbox: str = "off", emit: EventSink = null_sink, gate: OutsideGate | None = None) -> None:
        self.project_root = project_root
        self.gate = gate or OutsideGate(project_root, changes, sandbox, emit)
        self.gate.remember(self.launch("", hook) for hook in hooks)

    @property
    def approver(self) -> Callable[[], Approver | None]:
        return self.gate.approver

    @approver.setter
    def approver(self, value: Callable[[], Approver | None]) -> None:
        self.gate.approver = value

    @property
    def sandbox(self) -> str:
        return self.gate.sandbox

    @sandbox.setter
    def sandbox(self, value: str) -> None:
        self.gate.sandbox = value

    def launch(self, event: str, hook: HookConfig) -> Launch:
        return Launch("hook", hook_label(event, hook), command=hook.command, cwd=self.project_root, may_sandbox=True)

    def files(self, hook: HookConfig) -> list[Path]:
        """The project files ``hook`` runs, as they are named now (hooks run in the project root)."""
        return self.gate.files(self.launch("", hook))

    def placement(self, event: str, hook: HookConfig, call_id: str | None = None) -> Placement:
        """Where ``hook`` runs this time: outside (it runs nothing axon cannot name and nothing it runs
        changed, or the user approved), inside the sandbox, or nowhere."""
        verdict = self.gate.decide(self.launch(event, hook), call_id)
        if verdict.where == "outside":
            return OUTSIDE
        if verdict.where == "sandbox":
            return Placement(verdict.sandbox)
        return Placement(skipped=verdict.why)
