"""Nudges for weak replies in one run: an empty reply is retried once with a nudge, then reported;
a reply without tool calls that shows a command or says "let me run…" gets one reminder of how to
call tools, with the call it meant written out (the command from its ```bash block, or a skeleton of
the tool it named) in the protocol's own form. A genuine final answer is never nagged twice, and
prose alone is never nagged.
"""

from __future__ import annotations

import json
import re
from typing import Any

from axon_cli.tools.registry import ToolRegistry

__all__ = ["Nudger", "NATIVE_HINT", "TEXT_HINT", "EMPTY_NUDGE", "EMPTY_GAVE_UP", "REMINDER"]

NATIVE_HINT = "call one of your tools (function calling) instead of describing the step or showing a command"
TEXT_HINT = ('write a <tool_call>{"name": "TOOL", "arguments": {...}}</tool_call> block instead of '
             "describing the step or showing a command")
EMPTY_NUDGE = "Your last reply was empty. Continue the task: call a tool, or give your final answer."
EMPTY_GAVE_UP = "the model sent an empty reply twice in a row (once after a nudge); stopped"
REMINDER = ("Now do it: {hint}.{example} (Your last reply only described the step, so nothing has run yet. "
            "If the task is truly complete, give your final answer instead.)")


class Nudger:
    """One run's nudges: an empty reply gets one retry, a prose reply that means to act one reminder."""

    _SHELL_FENCE = re.compile(r"```[ \t]*(?:bash|sh|shell|console|zsh|terminal)\b", re.I)
    _SHELL_BODY = re.compile(r"```[ \t]*(?:bash|sh|shell|console|zsh|terminal)[ \t]*\n(.*?)```", re.I | re.S)
    _INTENT = re.compile(
        r"\b(?:let me|let's|i will|i'll|i am going to|i'm going to|i need to|next,? i)\s+(?:now\s+|first\s+)?"
        r"(?:run|read|check|open|create|write|edit|fix|look|execute|search|list|update|modify|use|call|"
        r"start|make|add|change|replace|inspect|view|test)\b", re.I)

    def __init__(self, hint: str | None, tools_active: bool, registry: ToolRegistry | None = None) -> None:
        self.hint = hint or NATIVE_HINT
        self.tools_active = tools_active
        self.registry = registry
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
        if self.reminded or not self.tools_active or not self.means_to_act(content):
            return None
        self.reminded = True
        self.reason = "the model described a step without calling a tool; reminded it how to call tools"
        return REMINDER.format(hint=self.hint, example=self.example(content))

    def means_to_act(self, content: str) -> bool:
        """A shell block or an "I will run…" intent; any code block before the first call."""
        if self._SHELL_FENCE.search(content) or self._INTENT.search(content):
            return True
        return not self.called and "```" in content

    def example(self, content: str) -> str:
        """The call the reply seems to mean, in the protocol's form, or ""."""
        call = self._meant_call(content)
        if call is None:
            return ""
        name, args = call
        if self.hint == TEXT_HINT:
            body = json.dumps({"name": name, "arguments": args})
            return f" For example:\n<tool_call>\n{body}\n</tool_call>\n"
        return f" For example, call {name} with {json.dumps(args)}."

    def _meant_call(self, content: str) -> tuple[str, dict[str, Any]] | None:
        """The first command of a shell block (as a bash call), else a skeleton of the first active tool
        the reply names (its required parameters, values left for the model to fill in)."""
        if self.registry is None:
            return None
        shell = self._SHELL_BODY.search(content)
        if shell and self.registry.is_active("bash"):
            lines = [ln.strip().removeprefix("$ ") for ln in shell.group(1).splitlines()]
            command = next((ln for ln in lines if ln and not ln.startswith("#")), "")
            if command:
                return "bash", {"command": command}
        for spec in self.registry.active():
            if spec.name != "tool_search" and re.search(rf"\b{re.escape(spec.name)}\b", content):
                required = spec.json_schema().get("required") or []
                return spec.name, {p: "..." for p in required}
        return None
