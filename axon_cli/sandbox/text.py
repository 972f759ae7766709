"""What the model and the user are told about the sandbox: the bash tool's extra description, and a
one-line note when a command's output shows a failure the sandbox caused."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

__all__ = ["describe", "sandboxed_specs", "explain"]

_DESCRIPTIONS = {
    "read-only": "Sandbox (read-only): commands cannot write files anywhere except a private /tmp, and "
                 "have no network access. Credential files (~/.ssh, ~/.aws, .env, *.pem, ...) read as empty.",
    "workspace-write": "Sandbox (workspace-write): commands may write only inside the project (not .git "
                       "or .axon) and a private /tmp; the rest of the filesystem is read-only and there "
                       "is no network access. Credential files (~/.ssh, ~/.aws, .env, *.pem, ...) read as "
                       "empty.",
}
_FS_SIGNS = ("Read-only file system",)
_NET_SIGNS = ("Network is unreachable", "Could not resolve host", "Temporary failure in name resolution",
              "Name or service not known", "nodename nor servname")


def describe(description: str, mode: str) -> str:
    """A tool description with the sandbox's rules appended (unchanged for ``off``)."""
    extra = _DESCRIPTIONS.get(mode)
    return f"{description.rstrip()}\n{extra}" if extra else description


def sandboxed_specs(specs: Iterable[Any], mode: str) -> list[Any]:
    """The tool specs with the sandbox's rules added to the ``bash`` description (copies, in order)."""
    return [dataclasses.replace(s, description=describe(s.description, mode)) if s.name == "bash" and mode != "off"
            else s for s in specs]


def explain(output: str, mode: str) -> str | None:
    """A one-line note when ``output`` shows a failure the sandbox likely caused."""
    if mode == "off":
        return None
    if any(sign in output for sign in _FS_SIGNS):
        where = ("only the project (not .git or .axon) and /tmp are writable" if mode == "workspace-write"
                 else "only /tmp is writable")
        return f"(sandbox: {mode}: {where})"
    if any(sign in output for sign in _NET_SIGNS):
        return f"(sandbox: {mode}: no network access)"
    return None
