"""A skill's ``allowed-tools``, in force from the moment the model loads it to the end of that turn.

They become allow rules of the session's policy (source "skill NAME (file)"), exactly like a
command's ``allowed_tools``: deny and ask rules, the read-only mode and the sensitive-path floor
still win. Only the user's own skills and a trusted project's carry them (``skills.py``). Claude
Code's spelling is read: ``Bash(git add:*)`` is ``bash(git add *)``, ``Read`` is ``read_file``, …;
a rule axon cannot read is left out with one notice.
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import TYPE_CHECKING, Any

from axon_cli.kernel.events import EventSink, Notice

if TYPE_CHECKING:
    from axon_cli.session.extend.skills import Skill

__all__ = ["SkillGrants", "claude_rule"]

CLAUDE_TOOLS = {"bash": "bash", "read": "read_file", "write": "write_file", "edit": "edit_file",
                "multiedit": "edit_file", "glob": "list_files", "ls": "list_files", "grep": "search_files",
                "webfetch": "web_fetch", "task": "task", "todowrite": "todo_write"}


def claude_rule(text: str) -> str:
    """``text`` in axon's rule syntax: Claude Code's tool names and ``prefix:*`` written as axon's."""
    match = re.fullmatch(r"\s*([\w.-]+)\s*(?:\((.*)\))?\s*", text)
    if match is None:
        return text.strip()
    tool, pattern = match.group(1), match.group(2)
    name = CLAUDE_TOOLS.get(tool.lower(), tool)
    if pattern is None or pattern.strip() in ("", "*"):
        return name
    pattern = re.sub(r":\*$", " *", pattern.strip())
    return f"{name}({pattern})"


class SkillGrants:
    """The allow rules of the skills loaded in the current turn; ``revoke`` at the turn's end."""

    def __init__(self, emit: EventSink | None = None) -> None:
        self.policy: Any = None            # bound by the runtime once the policy exists
        self.emit = emit
        self._added: list[Any] = []
        self._lock = threading.Lock()

    def grant(self, skill: Skill) -> None:
        from axon_cli.kernel.errors import ConfigError
        from axon_cli.policy.rules import parse_rule

        rules = getattr(getattr(self.policy, "rules", None), "rules", None)
        if not skill.allowed_tools or not isinstance(rules, list):
            return
        source = f"skill {skill.name} ({skill.shown})"
        with self._lock:
            for text in skill.allowed_tools:
                try:
                    rule = parse_rule(claude_rule(text), "allow", source)
                except (ConfigError, ValueError) as e:
                    if self.emit is not None:
                        self.emit(Notice(message=f"{skill.shown}: allowed-tools {text!r} left out ({e})"))
                    continue
                rules.append(rule)
                self._added.append(rule)

    def revoke(self) -> None:
        rules = getattr(getattr(self.policy, "rules", None), "rules", None)
        with self._lock:
            added, self._added = self._added, []
        for rule in added:
            with contextlib.suppress(ValueError, AttributeError):
                rules.remove(rule)   # type: ignore[union-attr]
