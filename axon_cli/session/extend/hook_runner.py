"""Running the user's hooks (``[[hooks.EVENT]]`` in config.toml, Claude Code's settings files) the way
Claude Code runs them.

Each hook is a shell command run in the project root, in its own process group, with one JSON
object on stdin in Claude Code's vocabulary (``claude_vocab``): ``session_id``, ``transcript_path``
(a transcript in Claude Code's format, brought up to date before the hook runs), ``cwd``,
``permission_mode``, ``hook_event_name`` and the event's fields (``tool_name``/``tool_input``/
``tool_use_id``/``tool_response``, ``prompt``, ``source``, ``stop_hook_active``, ``message``, …).
Its environment is axon's minus credentials, plus ``CLAUDE_PROJECT_DIR`` and ``AXON_PROJECT_DIR``.
What it answers is read by ``hook_reply``; a timeout kills its whole group. Every run is one line
in the audit log.

Before each run the ``HookGuard`` (``hook_guard``) checks whether a project file the hook runs changed
during the session: then the approver decides whether it runs outside as usual, or it runs inside the
session's sandbox, or (no sandbox) not at all — a PreToolUse hook that did not run blocks the call.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from axon_cli.machinery.masking import mask
from axon_cli.machinery.sandbox import outside
from axon_cli.machinery.sandbox.child_env import child_env
from axon_cli.session.extend.claude_vocab import names_of, permission_mode
from axon_cli.session.extend.hook_callables import CallableHook, run_callable
from axon_cli.session.extend.hook_guard import OUTSIDE, HookGuard, Placement, hook_label
from axon_cli.session.extend.hook_reply import HookReply, HookResult, read_reply
from axon_cli.settings.config import HookConfig
from axon_cli.tools.audit import AuditLog
from axon_cli.tools.builtin.bash.processes import RUN_MARKER, kill_tree, shell_path

__all__ = ["HookRunner", "HookResult", "HookReply", "matches"]

log = logging.getLogger("axon.hooks")
MAX_OUTPUT = 10_000


def matches(hook: HookConfig, names: tuple[str, ...] | None) -> bool:
    """A hook applies when its matcher is empty or ``*``, or (a regex over the whole name, as in Claude
    Code; axon's own names case-insensitively too) matches one of the call's names: Claude Code's
    (``Bash``, ``Edit``, ``mcp__srv__tool``) or axon's (``bash``, ``edit_file``). Events without a
    tool (``names`` None) run every hook."""
    pattern = hook.matcher.strip()
    if names is None or pattern in ("", "*"):
        return True
    try:
        return any(re.fullmatch(pattern, name) or re.fullmatch(pattern, name, re.IGNORECASE) and name.islower()
                   for name in names)
    except re.error:
        return False


class HookRunner:
    def __init__(self, hooks: dict[str, list[HookConfig]], project_root: Path, session_id: str,
                 audit: AuditLog, guard: HookGuard | None = None, sandbox_hide: list[str] | None = None) -> None:
        self.hooks = hooks
        self.project_root = project_root
        self.session_id = session_id
        self.audit = audit
        self.guard = guard
        self.sandbox_hide = sandbox_hide or []
        self.mode: Callable[[], str] = lambda: "default"           # axon's permission mode now
        self.transcript_path = project_root / ".axon" / "sessions" / f"{session_id}.claude.jsonl"
        self.before_run: Callable[[], None] = lambda: None         # brings the transcript up to date
        self.env_file: Path | None = None                          # CLAUDE_ENV_FILE, for SessionStart hooks

    def has(self, event: str) -> bool:
        return bool(self.hooks.get(event))

    def run(self, event: str, fields: dict[str, Any], tool: str | None = None,
            call_id: str | None = None, args: dict[str, Any] | None = None) -> HookResult:
        """Run every hook of ``event`` that matches ``tool`` (with ``args``), one after the other."""
        names = names_of(tool, args) if tool is not None else None
        result = HookResult()
        todo = [hook for hook in self.hooks.get(event, []) if matches(hook, names)]
        if not todo:
            return result
        try:
            self.before_run()
        except Exception:                 # a transcript that cannot be written must not stop the hook
            log.exception("writing the Claude Code transcript failed")
        payload = {"session_id": self.session_id, "transcript_path": str(self.transcript_path),
                   "cwd": str(self.project_root), "permission_mode": permission_mode(self.mode()),
                   "hook_event_name": event, **fields}
        data = json.dumps(payload, ensure_ascii=False, default=str).encode("utf-8", "replace")
        for hook in todo:
            reply = self._run_one(event, hook, data, call_id)
            result.replies.append(reply)
            self.audit.write_hook(event=event, command=hook.command, source=hook.source, tool=tool,
                                  call_id=call_id, exit_code=reply.exit_code, outcome=reply.outcome,
                                  decision=reply.decision, duration_ms=reply.duration_ms,
                                  error=reply.problem or (reply.reason if reply.outcome == "skipped" else None))
        return result

    def _run_one(self, event: str, hook: HookConfig, data: bytes, call_id: str | None) -> HookReply:
        started = time.monotonic()
        if isinstance(hook, CallableHook):          # the embedding program's own code: in-process
            reply = run_callable(event, hook, data)
            reply.duration_ms = int((time.monotonic() - started) * 1000)
            return reply
        where = self.guard.placement(event, hook, call_id) if self.guard is not None else OUTSIDE
        reply = _skipped(event, hook, where.skipped) if where.skipped else self._spawn(event, hook, data, where)
        reply.duration_ms = int((time.monotonic() - started) * 1000)
        return reply

    def _spawn(self, event: str, hook: HookConfig, data: bytes, where: Placement = OUTSIDE) -> HookReply:
        run_id = uuid.uuid4().hex
        env = {**child_env(), "AXON_PROJECT_DIR": str(self.project_root),
               "CLAUDE_PROJECT_DIR": str(self.project_root), "AXON_HOOK_EVENT": event, RUN_MARKER: run_id}
        if event == "SessionStart" and self.env_file is not None:
            env["CLAUDE_ENV_FILE"] = str(self.env_file)
        with contextlib.ExitStack() as stack:
            try:
                argv = [shell_path(), "-c", hook.command]
                if where.sandbox != "off":
                    from axon_cli.machinery import sandbox

                    argv = stack.enter_context(sandbox.confine(argv, where.sandbox, self.project_root,
                                                               home=env.get("HOME"), hide=self.sandbox_hide))
                proc = outside.popen(argv, outside.inside(where.sandbox), cwd=self.project_root, env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     start_new_session=True)
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
        return read_reply(event, hook, proc.returncode, _text(out), _text(err))


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
