"""Nudges for weak replies in one run: an empty reply is retried once with a nudge, then reported;
a reply without tool calls that shows a command or says "let me run…" gets one reminder of how to
call tools, with the call it meant written out in the protocol's own form: the command from its
```bash block, a read_file of a project file it names and has not read, or a skeleton of the tool
it names. A command that deletes or overwrites something (``destructive``) is never written out.
A genuine final answer is never nagged twice, and prose alone is never nagged. The
wording is in ``kernel/prompts/guidance_nudges.md``; the protocol's call hint comes from ``protocols``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from axon_cli.agent.guidance.destructive import destroys
from axon_cli.agent.protocols.interface import NATIVE_HINT, TEXT_HINT
from axon_cli.kernel.prompts import load_sections
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

__all__ = ["Nudger", "NATIVE_HINT", "TEXT_HINT", "EMPTY_NUDGE", "EMPTY_GAVE_UP", "REMINDER", "REMINDER_CALL", "EXAMPLE"]

_TEXT = load_sections("guidance_nudges.md")
EMPTY_NUDGE = _TEXT["empty"]
EMPTY_GAVE_UP = _TEXT["empty-gave-up"]
REMINDER = _TEXT["reminder"]
REMINDER_CALL = _TEXT["reminder-call"]
EXAMPLE = _TEXT["example"]


class Nudger:
    """One run's nudges: an empty reply gets one retry, a prose reply that means to act one reminder."""

    _SHELL_FENCE = re.compile(r"```[ \t]*(?:bash|sh|shell|console|zsh|terminal)\b", re.I)
    _SHELL_BODY = re.compile(r"```[ \t]*(?:bash|sh|shell|console|zsh|terminal)[ \t]*\n(.*?)```", re.I | re.S)
    _INTENT = re.compile(
        r"\b(?:let me|let's|i will|i'll|i am going to|i'm going to|i need to|next,? i)\s+(?:now\s+|first\s+)?"
        r"(?:run|read|check|open|create|write|edit|fix|look|execute|search|list|update|modify|use|call|"
        r"start|make|add|change|replace|inspect|view|test)\b", re.I)

    _FILE = re.compile(r"[\w./-]*\w\.[A-Za-z0-9]{1,8}\b|\b[A-Z][A-Z_]{2,}\b")   # calc.py, src/a.ts, VERSION

    def __init__(self, hint: str | None, tools_active: bool, registry: ToolRegistry | None = None,
                 ctx: ToolContext | None = None, planning: bool = False) -> None:
        self.hint = hint or NATIVE_HINT
        self.planning = planning      # plan mode: once the model has looked, its prose is the plan
        self.tools_active = tools_active
        self.registry = registry
        self.ctx = ctx
        self.empty = 0
        self.reminded = False
        self.called = False
        self.gave_up = False
        self.reason = ""          # why the last nudge was sent, for a Notice event

    def saw_calls(self) -> None:
        self.called = True
        self.empty = 0

    def check(self, content: str) -> str | None:
        """The nudge to send after a reply without calls, or None (it is the final answer)."""
        if not content.strip():
            self.empty += 1
            if self.empty > 1:
                self.gave_up = True
                return None
            self.reason = "the model sent an empty reply; asked it once more"
            return EMPTY_NUDGE
        self.empty = 0
        if self.reminded or not self.tools_active or (self.planning and self.called) or not self.means_to_act(content):
            return None
        self.reminded = True
        self.reason = "the model described a step without calling a tool; reminded it how to call tools"
        example = self.example(content)
        if example and self.hint == TEXT_HINT:
            return REMINDER_CALL.format(example=example)
        return REMINDER.format(hint=self.hint, example=example)

    def means_to_act(self, content: str) -> bool:
        """An "I will run…" intent; for text-protocol models also a shell block, or any code block
        before the first call. A native tool-calling model that shows code is answering (a snippet,
        a command for the user), so code alone never triggers a reminder there."""
        if self._INTENT.search(content):
            return True
        if self.hint == NATIVE_HINT:
            return False
        return bool(self._SHELL_FENCE.search(content)) or (not self.called and "```" in content)

    def example(self, content: str) -> str:
        """The call the reply seems to mean, in the protocol's form, or ""."""
        call = self._meant_call(content)
        if call is None:
            return ""
        name, args = call
        if self.hint == TEXT_HINT:
            body = json.dumps({"name": name, "arguments": args})
            return f"\n<tool_call>\n{body}\n</tool_call>\n"
        return " " + EXAMPLE.format(name=name, args=json.dumps(args))

    def _meant_call(self, content: str) -> tuple[str, dict[str, Any]] | None:
        """The first command of a shell block (as a bash call); else a read_file of the first project
        file the reply names that was not read yet; else a skeleton of the first active tool the reply
        names (its required parameters, a named file as the path, the rest for the model to fill)."""
        reg = self.registry
        if reg is None:
            return None
        shell = self._SHELL_BODY.search(content)
        if shell and reg.is_active("bash"):
            lines = [ln.strip().removeprefix("$ ") for ln in shell.group(1).splitlines()]
            command = _unwrap(next((ln for ln in lines if ln and not ln.startswith("#")), ""))
            if command and not destroys(command):   # never hand back a command that deletes or overwrites
                return "bash", {"command": command}
        files = self._files(content)
        unread = [f for f in files if self.ctx is not None and self.ctx.file_state.get(self.ctx.resolve(f)) is None]
        if unread and reg.is_active("read_file"):
            return "read_file", {"path": unread[0]}
        for spec in reg.active():
            if spec.name != "tool_search" and re.search(rf"\b{re.escape(spec.name)}\b", content):
                required = spec.json_schema().get("required") or []
                args = {p: "..." for p in required}
                if files and "path" in args:
                    args["path"] = files[0]
                return spec.name, args
        return None

    def _files(self, content: str) -> list[str]:
        """Project files the reply names, in order (only ones that exist)."""
        if self.ctx is None:
            return []
        found: list[str] = []
        root = self.ctx.project_root
        for name in self._FILE.findall(content):
            name = name.removeprefix("./")
            try:
                path = self.ctx.resolve(name)
                is_file = path.is_relative_to(root) and path.is_file()
            except (OSError, ValueError):
                is_file = False
            if is_file and name not in found:
                found.append(name)
        return found


def _unwrap(command: str) -> str:
    """``bash "pytest -q"`` (a model imitating a tool call in a shell block) → ``pytest -q``."""
    m = re.fullmatch(r"""(?:bash|sh)\s+(["'])(.+)\1""", command)
    return m.group(2) if m else command
