"""The sandbox for commands the ``bash`` tool runs: bubblewrap (``bwrap``) namespaces.

Modes (config key ``sandbox``, flag ``--sandbox``): ``auto`` (the default: ``workspace-write``
where bubblewrap works, else ``off`` with a notice), ``off``, ``read-only``, ``workspace-write``.

- ``probe``: whether bwrap works here (cached per boot) and what ``auto`` becomes.
- ``bwrap``: the command line (mounts, protected ``.git``/``.axon``, the hidden set).
- ``repos``: every other ``.git`` in the project (submodules, nested repositories), kept read-only.
- ``sockets``: unix sockets of user services (Docker, agents, the session bus), cut off.
- ``scan``: the bounded, cached directory walk those two use before each command.
- ``hidden``: credential stores and the project's sensitive files, which read as empty inside.
- ``mountpoints``: the transient mount point of a ``.git`` that does not exist yet.
- ``netns``: the session's one loopback-only network namespace, which every command joins.
- ``child_env``: the environment of every process axon starts (no credentials by any name).
- ``text``: what the model is told (the rules the bash tool's description states, a note when the
  sandbox caused a failure).
"""

from typing import TYPE_CHECKING, Any

from axon_cli.machinery.sandbox.probe import (
    CHOICES,
    MODES,
    SandboxStatus,
    check_available,
    find_bwrap,
    probe_failure,
    resolve,
)
from axon_cli.machinery.sandbox.text import EXIT_ARGUMENT, describe, explain

if TYPE_CHECKING:
    from axon_cli.machinery.sandbox.bwrap import PROTECTED, confine, wrap_command
    from axon_cli.machinery.sandbox.hidden import Hidden, hidden_set

__all__ = ["MODES", "CHOICES", "PROTECTED", "SandboxStatus", "Hidden", "wrap_command", "confine", "check_available",
           "find_bwrap", "probe_failure", "resolve", "hidden_set", "describe", "explain", "EXIT_ARGUMENT"]

_LAZY = {"PROTECTED": "bwrap", "confine": "bwrap", "wrap_command": "bwrap", "Hidden": "hidden", "hidden_set": "hidden"}


def __getattr__(name: str) -> Any:
    """The command line's machinery (``bwrap``, ``hidden``, ``repos``, ``scan``, ``sockets``) is imported
    when the first command is confined, not at start-up (the session needs only its status)."""
    if name in _LAZY:
        import importlib
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
