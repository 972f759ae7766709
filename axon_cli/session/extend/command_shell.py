"""Running a command's ``!`cmd` `` spans: each one is a ``bash`` call through the session's dispatcher.

So it passes exactly what a model's bash call passes — the permission policy with the command's
``allowed-tools`` in force (``command_scope``), the approver (in the chat a call that needs
approval asks; ``axon run`` without ``--yes`` refuses it), the user's hooks, the sandbox, the
snapshot before a change, secret masking and the audit log. A span that is not allowed, or that
axon cannot run, stops the command: its error names the command file and the span, and nothing
is sent to the model. A span that ran and failed (a non-zero exit) is inlined with its exit code,
as the model would see it.
"""

from __future__ import annotations

import itertools

from axon_cli.session.extend.commands import CustomCommand, ShellRunner
from axon_cli.tools.calls import ToolCall
from axon_cli.tools.dispatch import CallResult, Dispatcher

__all__ = ["shell_runner"]

_ids = itertools.count(1)


def _inlined(text: str, exit_code: object) -> str:
    """The output as it goes in place of the span: without the "exit code 0" line of a success."""
    body = text.rstrip("\n")
    if exit_code == 0 and body.endswith("exit code 0"):
        body = body[: -len("exit code 0")].rstrip("\n")
    return "" if body == "(no output)" else body


def shell_runner(dispatcher: Dispatcher, command: CustomCommand) -> ShellRunner:
    """Runs one span of ``command`` (call it inside ``command_scope``, so its allowed tools count)."""
    from axon_cli.kernel.errors import ConfigError

    def run(line: str) -> str:
        call = ToolCall.of(f"command-{next(_ids)}", "bash", {"command": line}, source="native")
        prepared = dispatcher.prepare(call)
        if isinstance(prepared, CallResult):     # refused before running: the result says why
            why = prepared.content.removeprefix("Error: ").split("\n", 1)[0]
            raise ConfigError(f"command /{command.qualified} ({command.source}): !`{line}` was not run: {why}; "
                              "nothing was sent")
        result = dispatcher.execute(prepared)
        exit_code = (result.display or {}).get("exit_code")
        if exit_code is None and not result.ok:
            why = result.content.removeprefix("Error: ").split("\n", 1)[0]
            raise ConfigError(f"command /{command.qualified} ({command.source}): !`{line}` failed: {why}; "
                              "nothing was sent")
        return _inlined(result.content, exit_code)

    return run
