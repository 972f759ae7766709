"""Diagnostics by a configured command: ``[diagnostics] "*.ts" = "tsc --noEmit {file}"`` in config.toml.

After a successful ``edit_file``/``write_file`` of a file matching a glob (a glob without ``/``
matches the file's name, one with ``/`` its project-relative path), the command runs with ``{file}``
replaced by the shell-quoted path, exactly where a ``bash`` call of the model would run now: the
session's sandbox (read-only in the read-only and plan modes), the same environment without axon's
credentials, its own process group killed when it ends. It never runs with more rights than that
bash call: without a sandbox, a command that runs a project file changed during this session (the
model's own code, e.g. ``python3 {file}``) does not run at all. Output is masked as tool output is
and capped; the time limit is ``diagnostics_timeout``.

"Only what the edit introduced": the command also runs on the file as it was before the edit (or
the result of its last run on exactly that text is reused), and only output lines that were not
there before are reported, line and column numbers left out of the comparison. A check that cannot
run, or is cancelled, appends nothing; one that times out appends one short line. Nothing here ever
fails or undoes the edit.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import os
import re
import shlex
import subprocess
import time
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from axon_cli.tools.spec import CallEnv, ToolContext

if TYPE_CHECKING:
    from axon_cli.machinery.sandbox import SandboxStatus

__all__ = ["SESSION_CHANGES", "DIAG_CACHE", "CommandCheck", "commands_for", "introduced", "before_edit",
           "after_edit", "watch_diagnostics"]

SESSION_CHANGES = "outside_gate"      # ctx.extra: the session's sandbox.outside.OutsideGate
DIAG_CACHE = "diagnostics_cache"      # ctx.extra: (command, path) -> (digest of the text, its output lines)
MAX_OUTPUT_CHARS = 20_000             # of one run's output, head and tail kept
MAX_SHOWN_LINES = 10
MAX_LINE_CHARS = 200
NOT_RUNNABLE = (126, 127)             # the shell's "cannot execute" / "command not found"
_LOCATION = re.compile(r"(?<=[:(,])\s*\d+(?=\s*[:),]|\s|$)|\bline \d+|^\s*\d+\s*\|")


@dataclass
class CommandCheck:
    """One configured command for one edit: its lines before the edit (None: no verdict)."""

    template: str
    command: str
    before: list[str] | None = None
    note: str = ""                    # a short line to report instead (it timed out, it was not run)


def watch_diagnostics(ctx: ToolContext, gate: Any) -> None:
    """At the session's start: hand the edit tools the session's ``OutsideGate`` and record what
    the project files each configured command runs hold now."""
    ctx.extra[SESSION_CHANGES] = gate
    table = getattr(ctx.settings, "diagnostics", None) or {}
    if gate is not None:
        gate.remember(_launch(cmd, ctx) for cmd in table.values() if isinstance(cmd, str))


def _launch(template: str, ctx: ToolContext) -> Any:
    from axon_cli.machinery.sandbox.outside import Launch

    return Launch("diagnostics", f"diagnostics command `{_short(template)}`", command=template.replace("{file}", "FILE"),
                  cwd=ctx.project_root, may_ask=False)


def commands_for(table: dict[str, str], rel: str) -> list[str]:
    """The configured commands whose glob matches the file at ``rel`` (project-relative)."""
    name = PurePosixPath(rel).name
    return [cmd for glob, cmd in table.items() if fnmatch.fnmatchcase(rel if "/" in glob else name, glob)]


def _as_argument(rel: str) -> str:
    """A path no command takes for an option (``-rf.txt`` → ``./-rf.txt``)."""
    return f"./{rel}" if rel.startswith("-") else rel


def _key(line: str) -> str:
    return _LOCATION.sub("#", line.strip())


def introduced(before: list[str], after: list[str]) -> list[str]:
    """The lines of ``after`` that ``before`` did not have (as many times as it had them), line and
    column numbers ignored (they move when lines are added above)."""
    seen = Counter(_key(line) for line in before)
    new = []
    for line in after:
        key = _key(line)
        if seen[key]:
            seen[key] -= 1
        else:
            new.append(line)
    return new


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def before_edit(path: Path, rel: str, old_text: str, ctx: ToolContext, status: SandboxStatus | None) -> list[CommandCheck]:
    """Run (or recall) each matching command on the file as it is before the edit (never raises)."""
    try:
        return _before(path, rel, old_text, ctx, status)
    except Exception:       # a check that breaks must not stop the edit
        return []


def after_edit(checks: list[CommandCheck], path: Path, rel: str, new_text: str, ctx: ToolContext,
               status: SandboxStatus | None) -> str:
    """Run each command on the edited file; what to append to the tool result ("" = nothing new; never
    raises: the edit is made, and a check that breaks says nothing)."""
    try:
        return _after(checks, path, rel, new_text, ctx, status)
    except Exception:
        return ""


def _before(path: Path, rel: str, old_text: str, ctx: ToolContext, status: SandboxStatus | None) -> list[CommandCheck]:
    table = getattr(ctx.settings, "diagnostics", None) or {}
    if status is None or not table:
        return []
    cache: dict[tuple[str, str], tuple[str, list[str]]] = ctx.extra.setdefault(DIAG_CACHE, {})
    checks = []
    for template in commands_for(table, rel):
        check = CommandCheck(template, template.replace("{file}", shlex.quote(_as_argument(rel))))
        cached = cache.get((template, str(path)))
        if cached is not None and cached[0] == _digest(old_text):
            check.before = cached[1]
        else:
            check.before, check.note = _run(check.command, ctx, status)
        checks.append(check)
    return checks


def _after(checks: list[CommandCheck], path: Path, rel: str, new_text: str, ctx: ToolContext,
           status: SandboxStatus | None) -> str:
    if status is None:
        return ""
    out = []
    cache = ctx.extra.setdefault(DIAG_CACHE, {})
    for check in checks:
        if check.before is None:
            out.append(check.note)
            continue
        after, note = _run(check.command, ctx, status)
        if after is None:
            out.append(note)
            continue
        cache[(check.template, str(path))] = (_digest(new_text), after)
        out.append(_report(check.command, rel, introduced(check.before, after)))
    return "".join(out)


def _report(command: str, rel: str, lines: list[str]) -> str:
    if not lines:
        return ""
    shown = [line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + "…" for line in lines[:MAX_SHOWN_LINES]]
    more = f"\n  [… {len(lines) - len(shown)} more]" if len(lines) > len(shown) else ""
    return (f"\n\ndiagnostics (`{_short(command)}`): this change introduced {len(lines)} new line"
            f"{'s' if len(lines) != 1 else ''} of output for {rel}; the file IS written as shown above — fix "
            "it with another edit:\n" + "\n".join(f"  {line}" for line in shown) + more)


def _short(command: str) -> str:
    command = " ".join(command.split())
    return command if len(command) <= 80 else command[:79] + "…"


def _run(command: str, ctx: ToolContext, status: SandboxStatus) -> tuple[list[str] | None, str]:
    """The command's non-blank output lines, or None and a note (empty: say nothing)."""
    from axon_cli.kernel.errors import ConfigError
    from axon_cli.machinery import sandbox
    from axon_cli.tools.builtin.bash.bash_tool import SESSION_ENV_KEY, sandbox_mode

    mode = sandbox_mode(status, str(getattr(ctx.settings, "mode", "")), CallEnv())   # never outside
    if mode == "off" and (refused := _unconfined_refusal(command, ctx)) is not None:
        return None, refused
    try:
        sandbox.check_available(mode)
    except ConfigError:
        return None, ""
    from axon_cli.machinery.sandbox.child_env import child_env
    from axon_cli.tools.builtin.bash.processes import RUN_MARKER, shell_path

    run_id = uuid.uuid4().hex
    env = child_env()
    env.update(ctx.extra.get(SESSION_ENV_KEY) or {})
    env[RUN_MARKER] = run_id
    hide = list(getattr(ctx.settings, "sandbox_hide", None) or [])
    sockets = list(getattr(ctx.settings, "sandbox_allow_sockets", None) or [])
    timeout = float(getattr(ctx.settings, "diagnostics_timeout", 10.0) or 10.0)
    with sandbox.confine([shell_path(), "-c", command], mode, ctx.project_root, home=env.get("HOME"),
                         hide=hide, allow_sockets=sockets) as argv:
        outcome, code, text = _capture(argv, env, run_id, ctx, timeout, mode)
    if outcome == "timeout":
        return None, f"\n\ndiagnostics: `{_short(command)}` took over {timeout:g} s and was stopped"
    if outcome != "exit" or code is None or code < 0 or code in NOT_RUNNABLE:
        return None, ""
    return [line for line in text.splitlines() if line.strip()], ""


def _unconfined_refusal(command: str, ctx: ToolContext, template: str = "") -> str | None:
    """Why ``command`` may not run without a sandbox (None: it may), as the session's ``OutsideGate``
    decides: it runs a project file changed in this session, or axon cannot tell what it runs (no
    gate: silence)."""
    gate: Any = ctx.extra.get(SESSION_CHANGES)
    if gate is None:
        return ""
    verdict = gate.decide(_launch(template or command, ctx))
    if verdict.where == "outside":
        return None
    why = "it runs a file changed in this session" if "changed during" in verdict.why else \
        "axon cannot tell which project files it runs"
    return f"\n\ndiagnostics: `{_short(command)}` was not run: {why}, and there is no sandbox"


def _capture(argv: list[str], env: dict[str, str], run_id: str, ctx: ToolContext,
             timeout: float, mode: str = "off") -> tuple[str, int | None, str]:
    """Run ``argv`` in the project root: ("exit" | "timeout" | "cancelled" | "error", exit code, masked output)."""
    from axon_cli.machinery.masking import default_masker
    from axon_cli.machinery.sandbox import outside
    from axon_cli.tools.builtin.bash.capture import StreamCapture
    from axon_cli.tools.builtin.bash.pump import run_to_end

    capture = StreamCapture(MAX_OUTPUT_CHARS, ctx.state_dir, "diagnostics", default_masker())
    try:
        proc = outside.popen(argv, outside.inside(mode), cwd=ctx.project_root, env=env, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    except OSError:
        return "error", None, ""
    try:
        outcome = run_to_end(proc, capture, ctx.cancel, time.monotonic() + timeout, run_id)
    finally:
        if capture.spill_path:          # the capped text is all a report uses
            with contextlib.suppress(OSError):
                os.unlink(capture.spill_path)
    return outcome, proc.returncode, capture.text()
