"""THE gate for everything axon runs outside the sandbox, and the one place that starts such a process.

Hooks (every source), MCP stdio servers (start and restart), ``[diagnostics]`` commands, language
servers, ``bash`` (``outside_sandbox`` calls, background jobs, ``!`` lines, which are ``bash`` calls)
all start their processes through ``popen`` / ``stdio_client`` here, with a ``Verdict``:

- ``inside(mode)``: the argv is already confined by ``sandbox.confine`` (checked: it is bubblewrap);
- ``unconfined(why)``: ``bash`` with the session's sandbox off, or a call the permission policy
  approved to leave an ``auto`` sandbox (``outside_sandbox``);
- ``OutsideGate.decide(launch)``: a configured command (hook, MCP server, diagnostics) runs outside
  unasked only when axon knows every project file it runs (``trust.pins.Runs``) and none changed
  during the session (``trust.changes``; across sessions the trust record's content pins hold it).
  Otherwise it asks the approver (with the reason) when the launch may ask; not approved (``axon
  run`` without ``--yes``, an ACP client that does not answer) it runs inside the sandbox where
  that serves (hooks), else it is refused with one line saying why and how to write the command
  so that it can be pinned.

What the gate does not contain: what a pinned script itself opens, imports or sources (a sibling
module, a virtualenv inside the project), and the user's own programs outside the project.
"""

from __future__ import annotations

import logging
import os
import subprocess
import threading
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from axon_cli.kernel.events import (
    ApprovalAnswer,
    ApprovalRequest,
    ApprovalRequested,
    Approver,
    EventSink,
    Notice,
    null_sink,
)
from axon_cli.settings.trust.changed_files import SessionChanges
from axon_cli.settings.trust.pins import Runs, argv_runs, command_runs

__all__ = ["Verdict", "Launch", "OutsideGate", "inside", "unconfined", "shell_verdict", "as_confined", "popen",
           "stdio_client", "HOW_TO_PIN", "OUTSIDE_REASON", "SETTINGS_THAT_RUN", "hold",
           "held_read_only"]

log = logging.getLogger("axon.outside")
OUTSIDE_REASON = "it runs outside the sandbox, with your permissions"
HOW_TO_PIN = ("to have it pinned, name the script directly, e.g. `python3 .claude/hooks/guard.py` or "
              "`\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.py` (no cd, other variables, redirections, "
              "-C/-f/--prefix options or flags axon does not know)")


@dataclass(frozen=True)
class Verdict:
    where: Literal["outside", "sandbox", "refused"]
    sandbox: str = "off"          # the sandbox mode it runs in (where == "sandbox")
    why: str = ""


def inside(mode: str) -> Verdict:
    """A process confined by ``sandbox.confine`` in ``mode`` (``off``: no sandbox at all)."""
    return Verdict("outside", why="the session's sandbox is off") if mode == "off" else Verdict("sandbox", mode)


def unconfined(why: str) -> Verdict:
    """``bash`` outside: the session's sandbox is off, or the permission policy approved leaving it."""
    return Verdict("outside", why=why)


def as_confined(argv: Sequence[str]) -> Verdict:
    """For a caller that prepared ``argv`` without a verdict: in the sandbox when it is confined."""
    return Verdict("sandbox", "confined") if _confined(argv) else unconfined("started without a sandbox")


def shell_verdict(mode: str, left_because: str | None) -> Verdict:
    """``bash`` (foreground, background job, ``!`` line) in the effective sandbox ``mode``: outside
    only with the session's sandbox off, or approved by the permission policy (``left_because``)."""
    if mode != "off":
        return Verdict("sandbox", mode)
    return unconfined(left_because or "the session's sandbox is off")


@dataclass(frozen=True)
class Launch:
    """One configured command about to run outside the sandbox."""

    kind: str                         # hook | mcp_server | diagnostics
    label: str                        # what the user is shown: 'PostToolUse hook `…`'
    command: str = ""                 # a shell line, run in ``cwd``
    argv: tuple[str, ...] = ()        # or a program and its arguments (an MCP server)
    cwd: Path | None = None
    env: dict[str, str] | None = None
    may_ask: bool = True              # whether the approver may be asked (not while a session starts)
    may_sandbox: bool = False         # whether running inside the sandbox serves (a hook still guards)


class OutsideGate:
    """The session's decisions about configured commands (one per session, shared by every caller)."""

    def __init__(self, project_root: Path, changes: SessionChanges | None = None, sandbox: str = "off",
                 emit: EventSink = null_sink) -> None:
        self.project_root = project_root
        self.changes = changes or SessionChanges()
        self.sandbox = sandbox
        self.emit = emit
        self.approver: Callable[[], Approver | None] = lambda: None
        self._asking = threading.Lock()            # one question at a time (hooks of parallel calls)
        self._said: set[str] = set()               # one notice per refusal, not one per tool call

    def runs(self, launch: Launch) -> Runs:
        """What ``launch`` runs: its project files, or why axon cannot tell."""
        cwd = launch.cwd or self.project_root
        if launch.argv:
            return argv_runs(launch.argv, self.project_root, cwd, launch.env)
        return command_runs(launch.command, self.project_root, cwd)

    def files(self, launch: Launch) -> list[Path]:
        return [self.project_root / rel for rel in self.runs(launch).files]

    def remember(self, launches: Iterable[Launch]) -> None:
        """At the session's start: what the files these commands run hold now; they are held
        read-only in the sandbox from now on (``held_read_only``)."""
        files = [path for launch in launches for path in self.files(launch)]
        self.changes.remember(files)
        hold(self.project_root, files)

    def decide(self, launch: Launch, call_id: str | None = None) -> Verdict:
        """Where ``launch`` runs this time: outside, inside the sandbox, or nowhere (refused)."""
        try:
            runs = self.runs(launch)
            changed = [] if runs.unknown else self.changes.changed(self.project_root / r for r in runs.files)
        except Exception as e:              # never run it outside unchecked
            log.exception("checking what a command runs failed")
            runs, changed = Runs(unknown=f"checking the files it runs failed ({type(e).__name__})"), []
        if runs.known and not changed:
            return Verdict("outside")
        if runs.unknown:
            why = f"{launch.label}: axon cannot tell what this runs ({runs.unknown})"
        else:
            names = ", ".join(os.path.relpath(p, self.project_root) for p in changed)
            why = f"{launch.label} runs {names}, which changed during this session"
        if launch.may_ask:
            with self._asking:
                if self._approved(launch, call_id, why):
                    self.changes.accept(changed)       # "cannot tell" asks again next time
                    return Verdict("outside", why=why)
        return self._not_approved(launch, why, runs)

    def _not_approved(self, launch: Launch, why: str, runs: Runs) -> Verdict:
        hint = f"; {HOW_TO_PIN}" if runs.unknown else ""
        if launch.may_sandbox and self.sandbox != "off":
            self._say(f"{why}: not approved to run outside the sandbox; it runs inside it{hint}")
            return Verdict("sandbox", self.sandbox, why)
        blocked = "; the tool call it guards is blocked" if launch.label.startswith("PreToolUse") else ""
        self._say(f"{why}: not run outside the sandbox unasked{blocked}{hint}")
        return Verdict("refused", why=f"{why}; it was not approved to run outside the sandbox"
                       f"{' and there is no sandbox to run it in' if launch.may_sandbox else ''}, so it did not run")

    def _say(self, line: str) -> None:
        if line not in self._said:
            self._said.add(line)
            self.emit(Notice(message=line))

    def _approved(self, launch: Launch, call_id: str | None, why: str) -> bool:
        approver = self.approver()
        if approver is None:
            return False
        shown = launch.command or " ".join(launch.argv)
        request = ApprovalRequest(call_id=call_id or f"{launch.kind}-{uuid.uuid4().hex[:12]}", tool=launch.kind,
                                  arguments={"command": shown}, summary=launch.label, reason=why, preview=shown,
                                  outside_sandbox=True, outside_reason=OUTSIDE_REASON)
        self.emit(ApprovalRequested(call_id=request.call_id, name=launch.kind, reason=why, outside_sandbox=True,
                                    outside_reason=OUTSIDE_REASON))
        try:
            answer = approver(request)
        except (KeyboardInterrupt, EOFError):
            answer = ApprovalAnswer(approved=False)
        except Exception:
            log.exception("approver failed")
            answer = ApprovalAnswer(approved=False)
        return answer.approved


# Project settings that name commands something runs outside the sandbox: axon's and Claude Code's
# (hooks, MCP servers), and the editors' that run tasks, launch configs, MCP servers or a dev
# container's commands when the user opens the folder (VS Code, Cursor, Zed, JetBrains run
# configurations, dev containers) and direnv's .envrc. Read-only inside the sandbox, so a
# sandboxed command cannot plant a command there for later.
SETTINGS_THAT_RUN = (".claude", ".axon", ".mcp.json", ".vscode", ".cursor", ".zed", ".idea", ".devcontainer",
                     ".envrc", ".gemini", ".codex")
_HELD: dict[str, set[str]] = {}          # project root -> files configured commands run (held read-only)
_HELD_LOCK = threading.Lock()


def hold(project_root: Path | str, files: Iterable[Path | str]) -> None:
    """Keep ``files`` (what a configured command runs) read-only in every sandbox of the project."""
    root = os.path.realpath(project_root)
    with _HELD_LOCK:
        _HELD.setdefault(root, set()).update(os.path.realpath(f) for f in files)


def held_read_only(project_root: Path | str) -> list[str]:
    """What stays read-only inside a writable project beyond ``.git``: the settings that name
    commands and every file a configured command runs (those that exist; real paths inside it)."""
    root = os.path.realpath(project_root)
    with _HELD_LOCK:
        files = set(_HELD.get(root, ()))
    paths = {os.path.realpath(os.path.join(root, name)) for name in SETTINGS_THAT_RUN} | files
    return sorted(p for p in paths if p.startswith(root + "/") and os.path.exists(p))


def _confined(argv: Sequence[str]) -> bool:
    """``bwrap … -- command``, alone or after the ``nsenter --net=… [--user=… --preserve-credentials]``
    that joins the session's network namespace (``netns.prefix``): nothing else runs before bwrap."""
    words = list(argv)
    if words and os.path.basename(words[0]) == "nsenter":
        words = words[1:]
        while words and words[0].startswith("--") and words[0] != "--":
            words = words[1:]
    return bool(words) and os.path.basename(words[0]) == "bwrap" and "--" in words


def _check(argv: Sequence[str], verdict: Verdict) -> None:
    if verdict.where == "refused":
        raise PermissionError(verdict.why or "refused by the outside-sandbox gate")
    if verdict.where == "sandbox" and not _confined(argv):
        raise PermissionError("a process meant for the sandbox was not confined; not started")


def popen(argv: Sequence[str], verdict: Verdict, **kwargs: Any) -> subprocess.Popen[bytes]:
    """THE start of a command, hook, checker or language server (``kwargs`` go to ``Popen``), under a
    keeper (``lifetime.spawn``): it and everything it starts end when axon ends."""
    from axon_cli.machinery.sandbox.lifetime import spawn

    _check(argv, verdict)
    return spawn(list(argv), **kwargs)


def stdio_client(params: Any, verdict: Verdict, errlog: Any) -> Any:
    """THE start of an MCP stdio server (the mcp SDK's transport), once the gate let it run outside."""
    _check([str(params.command)], verdict)
    from mcp.client.stdio import stdio_client as sdk_stdio_client

    return sdk_stdio_client(params, errlog=errlog)
