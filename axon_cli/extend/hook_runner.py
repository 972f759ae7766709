"""Running the user's hooks (``[[hooks.EVENT]]`` in config.toml), Claude Code's convention.

Each hook is a shell command run in the project root, in its own process group, with one JSON
object on stdin (``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name`` and the event's
fields: ``tool_name``/``tool_input``/``tool_response``, ``prompt``, ``source``,
``stop_hook_active``). Its environment is axon's minus credentials, plus ``AXON_PROJECT_DIR``
(and ``CLAUDE_PROJECT_DIR``, so existing hook scripts find the project).

What it answers: exit 0 → go on (its stdout is text, or a JSON object with ``decision`` —
allow | deny | ask, Claude's approve | block too, or ``hookSpecificOutput.permissionDecision`` —
plus ``reason`` and ``additionalContext``); exit 2 → block, its stderr is the reason; any other
exit, a timeout (the whole group is killed) or output that starts like JSON but is not → a
problem line, and the hook counts as silent. Every run is one line in the audit log.

Before each run the ``HookGuard`` (``hook_guard``) checks whether a project file the hook runs changed
during the session: then the approver decides whether it runs outside as usual, or it runs inside the
session's sandbox, or (no sandbox) not at all — a PreToolUse hook that did not run blocks the call.
"""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from axon_cli.config import HookConfig
from axon_cli.extend.hook_guard import OUTSIDE, HookGuard, Placement, hook_label
from axon_cli.masking import mask
from axon_cli.tools.audit import AuditLog
from axon_cli.tools.builtin.shell.processes import RUN_MARKER, command_env, kill_tree, shell_path

__all__ = ["HookRunner", "HookResult", "HookReply"]

MAX_OUTPUT = 10_000
_DECISIONS = {"allow": "allow", "approve": "allow", "deny": "deny", "block": "deny", "ask": "ask"}


@dataclass
class HookReply:
    """One hook's answer."""

    hook: HookConfig
    outcome: Literal["ok", "block", "error", "timeout", "skipped"]
    exit_code: int | None = None
    decision: str | None = None       # allow | deny | ask
    reason: str = ""
    context: str = ""                 # additionalContext of a JSON reply
    output: str = ""                  # plain (non-JSON) stdout of a hook that exited 0
    problem: str = ""
    duration_ms: int = 0


@dataclass
class HookResult:
    """Every matching hook's answer for one event, in config order."""

    replies: list[HookReply] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return [r.problem for r in self.replies if r.problem]

    def first(self, decision: str) -> HookReply | None:
        return next((r for r in self.replies if r.decision == decision), None)

    def context(self, plain_output: bool) -> str:
        """additionalContext of every reply (and the plain stdout too, with ``plain_output``)."""
        parts = [r.context for r in self.replies] + ([r.output for r in self.replies] if plain_output else [])
        return "\n".join(p for p in parts if p).strip()


def matches(hook: HookConfig, tool: str | None) -> bool:
    """A tool event's hook applies when its matcher (a regex over the whole name, case-insensitive,
    so Claude Code's ``Bash`` matches ``bash``) is empty, ``*``, or matches the tool's name."""
    pattern = hook.matcher.strip()
    if tool is None or pattern in ("", "*"):
        return True
    return re.fullmatch(pattern, tool, re.IGNORECASE) is not None


class HookRunner:
    def __init__(self, hooks: dict[str, list[HookConfig]], project_root: Path, session_id: str,
                 audit: AuditLog, guard: HookGuard | None = None, sandbox_hide: list[str] | None = None) -> None:
        self.hooks = hooks
        self.project_root = project_root
        self.session_id = session_id
        self.audit = audit
        self.guard = guard
        self.sandbox_hide = sandbox_hide or []

    def has(self, event: str) -> bool:
        return bool(self.hooks.get(event))

    def run(self, event: str, fields: dict[str, Any], tool: str | None = None,
            call_id: str | None = None) -> HookResult:
        """Run every hook of ``event`` that matches ``tool``, one after the other."""
        payload = {"session_id": self.session_id, "cwd": str(self.project_root), "hook_event_name": event,
                   "transcript_path": str(self.project_root / ".axon" / "sessions" / f"{self.session_id}.jsonl"),
                   **fields}
        data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8", "replace")
        result = HookResult()
        for hook in self.hooks.get(event, []):
            if matches(hook, tool):
                reply = self._run_one(event, hook, data, call_id)
                result.replies.append(reply)
                self.audit.write_hook(event=event, command=hook.command, source=hook.source, tool=tool,
                                      call_id=call_id, exit_code=reply.exit_code, outcome=reply.outcome,
                                      decision=reply.decision, duration_ms=reply.duration_ms,
                                      error=reply.problem or (reply.reason if reply.outcome == "skipped" else None))
        return result

    def _run_one(self, event: str, hook: HookConfig, data: bytes, call_id: str | None) -> HookReply:
        started = time.monotonic()
        where = self.guard.placement(event, hook, call_id) if self.guard is not None else OUTSIDE
        reply = _skipped(event, hook, where.skipped) if where.skipped else self._spawn(event, hook, data, where)
        reply.duration_ms = int((time.monotonic() - started) * 1000)
        return reply

    def _spawn(self, event: str, hook: HookConfig, data: bytes, where: Placement = OUTSIDE) -> HookReply:
        run_id = uuid.uuid4().hex
        env = {**command_env(), "AXON_PROJECT_DIR": str(self.project_root),
               "CLAUDE_PROJECT_DIR": str(self.project_root), "AXON_HOOK_EVENT": event, RUN_MARKER: run_id}
        with contextlib.ExitStack() as stack:
            try:
                argv = [shell_path(), "-c", hook.command]
                if where.sandbox != "off":
                    from axon_cli import sandbox

                    argv = stack.enter_context(sandbox.confine(argv, where.sandbox, self.project_root,
                                                               home=env.get("HOME"), hide=self.sandbox_hide))
                proc = subprocess.Popen(argv, cwd=self.project_root, env=env, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            except OSError as e:
                return HookReply(hook, "error", problem=f"{_name(event, hook)} could not start: {e.strerror or e}")
            return self._wait(event, hook, data, proc, run_id)

    def _wait(self, event: str, hook: HookConfig, data: bytes, proc: subprocess.Popen[bytes],
              run_id: str) -> HookReply:
        try:
            out, err = proc.communicate(data, timeout=hook.timeout)
        except subprocess.TimeoutExpired:
            kill_tree(proc, run_id)
            _collect(proc)
            return HookReply(hook, "timeout", problem=f"{_name(event, hook)} timed out after {hook.timeout:g} s; "
                             "its processes were killed")
        finally:
            kill_tree(proc, run_id)     # after Ctrl-C, and background children it left: nothing survives
        return _reply(event, hook, proc.returncode, _text(out), _text(err))


_name = hook_label


def _skipped(event: str, hook: HookConfig, why: str) -> HookReply:
    """A hook that did not run (the guard said why, in a notice): a PreToolUse hook blocks the call it
    would have judged (fail closed); any other counts as silent."""
    return HookReply(hook, "skipped", decision="deny" if event == "PreToolUse" else None, reason=why)


def _text(raw: bytes | None) -> str:
    return mask((raw or b"")[:MAX_OUTPUT].decode("utf-8", "replace")).strip()


def _collect(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(subprocess.TimeoutExpired, ValueError, OSError):
        proc.communicate(timeout=2)


def _reply(event: str, hook: HookConfig, code: int, out: str, err: str) -> HookReply:
    if code == 2:
        return HookReply(hook, "block", 2, "deny", err or f"blocked by {_name(event, hook)}")
    if code != 0:
        detail = (err or out).split("\n")[0][:200]
        return HookReply(hook, "error", code, problem=f"{_name(event, hook)} failed (exit {code})"
                         + (f": {detail}" if detail else ""))
    if not out.startswith("{"):
        return HookReply(hook, "ok", 0, output=out)
    try:
        reply = json.loads(out)
        if not isinstance(reply, dict):
            raise ValueError("not an object")
    except ValueError:
        return HookReply(hook, "error", 0, problem=f"{_name(event, hook)} printed output that is not valid JSON")
    nested = reply.get("hookSpecificOutput")
    specific: dict[str, Any] = nested if isinstance(nested, dict) else {}
    raw = specific.get("permissionDecision") or reply.get("decision")
    decision = _DECISIONS.get(str(raw).lower()) if raw else None
    reason = specific.get("permissionDecisionReason") or reply.get("reason") or ""
    context = specific.get("additionalContext") or ""
    return HookReply(hook, "block" if decision == "deny" else "ok", 0, decision, str(reason), str(context))
