"""What ``--debug`` writes to ``.axon/debug.log`` about each model request, so a run can be explained:
the request (messages, approximate tokens, tools sent and how, protocol) and the model's raw reply
(masked, capped). Only the ``axon`` logger is used; nothing is computed unless debug logging is on.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from axon_cli.agent.model.turns import AssistantTurn
from axon_cli.machinery.masking import mask
from axon_cli.tools.registry import ToolRegistry

__all__ = ["REPLY_CAP", "enabled", "shown", "log_request", "log_reply", "protocol_name"]

log = logging.getLogger("axon.debug")
REPLY_CAP = 4096


def enabled() -> bool:
    return log.isEnabledFor(logging.DEBUG)


def shown(text: str, cap: int = REPLY_CAP) -> str:
    """``text`` masked, then cut to ``cap`` characters (saying how much was left out)."""
    text = mask(text)
    return text if len(text) <= cap else f"{text[:cap]}… [{len(text) - cap} more characters]"


def protocol_name(protocol: Any) -> str:
    name = getattr(protocol, "name", None)
    return name if isinstance(name, str) else type(protocol).__name__


def log_request(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, protocol: Any,
                registry: ToolRegistry) -> None:
    """One line per request: what is sent, and how big it is (chars/4)."""
    if not enabled():
        return
    chars = len(json.dumps(messages)) + (len(json.dumps(tools)) if tools else 0)
    name = protocol_name(protocol)
    if tools:
        sent = "tools field: " + ", ".join(t.get("function", {}).get("name", "?") for t in tools)
    elif name == "text":
        sent = "in the system prompt: " + ", ".join(s.name for s in registry.active())
    else:
        sent = "none"
    log.debug("request: protocol %s, %d messages, ~%d tokens; tools %s", name, len(messages), chars // 4, sent)


def log_reply(turn: AssistantTurn) -> None:
    """The model's reply as it came (masked, capped), with its native calls and finish reason."""
    if not enabled():
        return
    calls = "; ".join(f"{c.name}({shown(c.arguments, 500)})" for c in turn.tool_calls) or "none"
    log.debug("reply: finish_reason %s, %d+%d tokens, native calls: %s\n--- raw reply ---\n%s\n--- end ---",
              turn.finish_reason, turn.prompt_tokens, turn.completion_tokens, calls, shown(turn.content))
