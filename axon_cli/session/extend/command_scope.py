"""What a custom command changes for the one turn it runs: its model and its allowed tools.

``allowed_tools`` become allow rules of the session's policy for that turn only (source
"command /NAME (file)"), so deny and ask rules, the read-only mode and the sensitive-path floor
still win, exactly as for an allow rule in permissions.toml. Both are undone when the turn ends,
however it ends.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from axon_cli.policy.rules import parse_rule
from axon_cli.session.extend.commands import CustomCommand

__all__ = ["command_scope"]


@contextlib.contextmanager
def _granted(policy: Any, command: CustomCommand) -> Iterator[None]:
    rules = getattr(getattr(policy, "rules", None), "rules", None)
    if not command.allowed_tools or not isinstance(rules, list):
        yield
        return
    source = f"command /{command.name} ({command.source})"
    added = [parse_rule(text, "allow", source) for text in command.allowed_tools]
    rules.extend(added)
    try:
        yield
    finally:
        for rule in added:
            with contextlib.suppress(ValueError):
                rules.remove(rule)


@contextlib.contextmanager
def _model(settings: Any, model: str | None) -> Iterator[None]:
    if not model or model == settings.model:
        yield
        return
    before = settings.model
    settings.model = model
    try:
        yield
    finally:
        settings.model = before


@contextlib.contextmanager
def command_scope(policy: Any, settings: Any, command: CustomCommand) -> Iterator[None]:
    """Run the body (one agent turn) with the command's model and allowed tools in force."""
    with _granted(policy, command), _model(settings, command.model):
        yield
