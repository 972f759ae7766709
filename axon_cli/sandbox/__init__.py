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
- ``text``: what the model is told (the rules the bash tool's description states, a note when the
  sandbox caused a failure).
"""

from axon_cli.sandbox.bwrap import PROTECTED, confine, wrap_command
from axon_cli.sandbox.hidden import Hidden, hidden_set
from axon_cli.sandbox.probe import (
    CHOICES,
    MODES,
    SandboxStatus,
    check_available,
    find_bwrap,
    probe_failure,
    resolve,
)
from axon_cli.sandbox.text import EXIT_ARGUMENT, describe, explain

__all__ = ["MODES", "CHOICES", "PROTECTED", "SandboxStatus", "Hidden", "wrap_command", "confine", "check_available",
           "find_bwrap", "probe_failure", "resolve", "hidden_set", "describe", "explain", "EXIT_ARGUMENT"]
