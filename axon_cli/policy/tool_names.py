"""The names of MCP tools, as the model, the rules, the hooks and ``axon tools`` see them.

A tool ``TOOL`` of server ``SERVER`` is ``mcp__SERVER__TOOL`` (Claude Code's convention), every
character outside ``[A-Za-z0-9_-]`` made ``_``. A name longer than 64 characters (OpenAI's limit for
a function name) keeps its first 55 characters and ends in ``_`` and 8 hex digits of the SHA-1 of
the server and tool names as configured and listed, so it stays the same on every run and two long
names that share a beginning still differ.

A rule names a tool ``mcp__SERVER__TOOL``, or every tool of a server ``mcp__SERVER`` (also written
``mcp__SERVER__*``). Permission files written before this convention named a tool ``SERVER__TOOL``;
such a rule still covers the tool it covered (a deny rule must not silently stop denying), and
``axon permissions`` says how it is written now (``legacy_rule_note``).
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["MCP_PREFIX", "MAX_NAME", "tool_name", "server_rule", "sanitize", "rule_names", "server_of",
           "legacy_rule_note"]

MCP_PREFIX = "mcp__"
MAX_NAME = 64
_KEEP = 55
_INVALID = re.compile(r"[^A-Za-z0-9_-]")


def sanitize(text: str) -> str:
    """``text`` with every character outside ``[A-Za-z0-9_-]`` made ``_``."""
    return _INVALID.sub("_", text)


def tool_name(server: str, tool: str) -> str:
    """``mcp__SERVER__TOOL``, sanitized; over 64 characters: 55 of them, ``_`` and 8 hex digits."""
    name = f"{MCP_PREFIX}{sanitize(server)}__{sanitize(tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha1(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[:_KEEP]}_{digest}"


def server_rule(server: str) -> str:
    """The rule name that covers every tool of ``server``: ``mcp__SERVER``."""
    return f"{MCP_PREFIX}{sanitize(server)}"


def server_of(source: str) -> str | None:
    """The server of a tool whose spec source is ``mcp:SERVER``; None for any other tool."""
    return source[4:] if source.startswith("mcp:") else None


def rule_names(name: str, source: str) -> frozenset[str]:
    """Every rule tool name that covers a call of tool ``name`` (spec source ``source``): the name
    itself; for an MCP tool also ``mcp__SERVER``, ``mcp__SERVER__*`` and the old ``SERVER__TOOL``."""
    server = server_of(source)
    if server is None:
        return frozenset((name,))
    whole = server_rule(server)
    names = {name, whole, whole + "__*"}
    if name.startswith(MCP_PREFIX):
        names.add(name[len(MCP_PREFIX):])        # the old SERVER__TOOL spelling
    return frozenset(names)


def legacy_rule_note(rule_tool: str, servers: list[str]) -> str | None:
    """For a rule tool written the old way (``SERVER__TOOL`` of a configured server), how it is
    written now; None for any other."""
    if rule_tool.startswith(MCP_PREFIX):
        return None
    for server in servers:
        prefix = sanitize(server) + "__"
        if rule_tool.startswith(prefix) and len(rule_tool) > len(prefix):
            return (f'"{rule_tool}" is the old spelling of "{MCP_PREFIX}{rule_tool}" (still honoured); '
                    "write it with the mcp__ prefix")
    return None
