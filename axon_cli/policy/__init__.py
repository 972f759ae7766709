"""Permission policy: modes, rules files, shell analysis, paths. Pure: no I/O in decisions."""

from axon_cli.policy.base import AllowAll, Decision, PermissionPolicy

__all__ = ["AllowAll", "Decision", "PermissionPolicy"]
