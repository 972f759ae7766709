"""Permission policy: the mode ladder and the one owner of a session's mode, rules files, paths, the
decision (pure: no I/O in decisions), sandbox exit, web rules, tool naming."""

from axon_cli.policy.base import AllowAll, Decision, PermissionPolicy

__all__ = ["AllowAll", "Decision", "PermissionPolicy"]
