"""What the model and the user are told about the sandbox: the rules the bash tool's description adds
(and, for an ``auto`` sandbox, the name of its ``outside_sandbox`` argument), and a one-line note when
a command's output shows a failure the sandbox caused. The bash tool builds its own spec from these."""

from __future__ import annotations

__all__ = ["describe", "explain", "EXIT_ARGUMENT"]

EXIT_ARGUMENT = "outside_sandbox"
_DESCRIPTIONS = {
    "read-only": "Sandbox (read-only): commands cannot write files anywhere except a private /tmp, and "
                 "have no network access. Credential files (~/.ssh, ~/.aws, .env, *.pem, ...) read as empty.",
    "workspace-write": "Sandbox (workspace-write): commands may write only inside the project (not .git "
                       "or .axon) and a private /tmp; the rest of the filesystem is read-only and there "
                       "is no network access. Credential files (~/.ssh, ~/.aws, .env, *.pem, ...) read as "
                       "empty.",
}
_LEAVE = ("Set outside_sandbox: true to run a command the sandbox blocks (network, git commit, writes outside "
          "the project) outside it; the user is asked first.")
_FS_SIGNS = ("Read-only file system",)
_NET_SIGNS = ("Network is unreachable", "Could not resolve host", "Temporary failure in name resolution",
              "Name or service not known", "nodename nor servname")


def describe(description: str, mode: str, may_leave: bool = False) -> str:
    """A tool description with the sandbox's rules appended (unchanged for ``off``)."""
    extra = _DESCRIPTIONS.get(mode)
    if extra and may_leave:
        extra += " " + _LEAVE
    return f"{description.rstrip()}\n{extra}" if extra else description


def explain(output: str, mode: str, may_leave: bool = False) -> str | None:
    """A one-line note when ``output`` shows a failure the sandbox likely caused; with ``may_leave``
    it says how to run the command outside the sandbox."""
    if mode == "off":
        return None
    leave = "; to run it outside the sandbox, call bash again with outside_sandbox: true (the user is asked)"
    if any(sign in output for sign in _FS_SIGNS):
        where = ("only the project (not .git or .axon) and /tmp are writable" if mode == "workspace-write"
                 else "only /tmp is writable")
        return f"(sandbox: {mode}: {where}{leave if may_leave else ''})"
    if any(sign in output for sign in _NET_SIGNS):
        return f"(sandbox: {mode}: no network access{leave if may_leave else ''})"
    return None
