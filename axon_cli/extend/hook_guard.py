"""Before a hook runs outside the sandbox: did a file it runs change during this session?

Hooks run outside the sandbox, so a hook whose script (``sh scripts/post-check.sh``) or build file
(``make lint`` → Makefile, ``pytest`` → conftest.py; see ``trust/pins``) the model rewrote inside the
sandbox would run the model's code outside it. When one of those files changed since the session
started, the approver is asked first, naming the file; approved, the hook runs as usual (and that
content counts as approved for the rest of the session). Not approved (``axon run`` without
``--yes`` answers no): the hook runs *inside* the session's sandbox when there is one, so a guard
still guards; without a sandbox it does not run, and a PreToolUse hook that did not run blocks the
call it would have judged (fail closed).
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from axon_cli.config import HookConfig
from axon_cli.events import (
    ApprovalAnswer,
    ApprovalRequest,
    ApprovalRequested,
    Approver,
    EventSink,
    Notice,
    null_sink,
)
from axon_cli.trust.changes import SessionChanges
from axon_cli.trust.pins import command_files

__all__ = ["HookGuard", "Placement", "OUTSIDE"]

log = logging.getLogger("axon.hooks")
OUTSIDE_REASON = "hooks run outside the sandbox, with your permissions"


@dataclass(frozen=True)
class Placement:
    sandbox: str = "off"      # off: outside, as hooks always run; else the sandbox mode it runs in
    skipped: str = ""         # why it does not run at all ("" = it runs)


OUTSIDE = Placement()


def hook_label(event: str, hook: HookConfig) -> str:
    command = " ".join(hook.command.split())
    return f"{event} hook `{command[:60]}{'…' if len(command) > 60 else ''}`"


class HookGuard:
    def __init__(self, project_root: Path, hooks: Iterable[HookConfig], changes: SessionChanges | None = None,
                 sandbox: str = "off", emit: EventSink = null_sink) -> None:
        self.project_root = project_root
        self.changes = changes or SessionChanges()
        self.sandbox = sandbox
        self.emit = emit
        self.approver: Callable[[], Approver | None] = lambda: None
        self._asking = threading.Lock()            # one question at a time (hooks of parallel calls)
        self.changes.remember(path for hook in hooks for path in self.files(hook))

    def files(self, hook: HookConfig) -> list[Path]:
        """The project files ``hook`` runs, as they are named now (hooks run in the project root)."""
        return [self.project_root / rel for rel in command_files(hook.command, self.project_root)]

    def placement(self, event: str, hook: HookConfig, call_id: str | None = None) -> Placement:
        """Where ``hook`` runs this time: outside (nothing it runs changed, or the user approved),
        inside the sandbox, or nowhere."""
        try:
            changed = self.changes.changed(self.files(hook))
        except Exception as e:              # never run it outside unchecked
            log.exception("checking the files of a hook failed")
            changed, why = [], f"{hook_label(event, hook)}: could not check the files it runs ({type(e).__name__})"
        else:
            if not changed:
                return OUTSIDE
            names = ", ".join(self._relative(p) for p in changed)
            why = f"{hook_label(event, hook)} runs {names}, which changed during this session"
        return self._changed(event, hook, call_id, changed, why)

    def _changed(self, event: str, hook: HookConfig, call_id: str | None, changed: list[Path],
                 what: str) -> Placement:
        with self._asking:
            if self._approved(event, hook, call_id, what):
                self.changes.accept(changed)
                return OUTSIDE
        if self.sandbox != "off":
            self.emit(Notice(message=f"{what}: not approved to run outside the sandbox; it runs inside it"))
            return Placement(self.sandbox)
        blocked = "; the tool call it guards is blocked" if event == "PreToolUse" else ""
        self.emit(Notice(message=f"{what}: not approved, and there is no sandbox to run it in: skipped{blocked}"))
        return Placement(skipped=f"{what}; it was not approved to run outside the sandbox and there is no "
                                 "sandbox to run it in, so it did not run")

    def _approved(self, event: str, hook: HookConfig, call_id: str | None, what: str) -> bool:
        approver = self.approver()
        if approver is None:
            return False
        request = ApprovalRequest(call_id=call_id or f"hook-{uuid.uuid4().hex[:12]}", tool="hook",
                                  arguments={"event": event, "command": hook.command}, summary=hook_label(event, hook),
                                  reason=what, preview=hook.command, outside_sandbox=True, outside_reason=OUTSIDE_REASON)
        self.emit(ApprovalRequested(call_id=request.call_id, name="hook", reason=what, outside_sandbox=True,
                                    outside_reason=OUTSIDE_REASON))
        try:
            answer = approver(request)
        except (KeyboardInterrupt, EOFError):
            answer = ApprovalAnswer(approved=False)
        except Exception:
            log.exception("approver failed")
            answer = ApprovalAnswer(approved=False)
        return answer.approved

    def _relative(self, path: Path) -> str:
        try:
            return str(path.relative_to(self.project_root))
        except ValueError:
            return str(path)
