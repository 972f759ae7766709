"""The named tables of a settings file: ``[prices.MODEL]`` (Price), ``[mcp_servers.NAME]``
(McpServerConfig, also an ``.mcp.json`` entry) and ``[[hooks.EVENT]]`` (HookConfig, and the hook events).
``config.Settings`` holds them; the rest of axon imports them from ``config``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = ["Price", "McpServerConfig", "HookConfig", "HookEvent", "HOOK_EVENTS"]

HookEvent = str      # any event name: Claude Code's (HOOK_EVENTS) and ones added later are accepted
HOOK_EVENTS: tuple[str, ...] = ("PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure",
                                "Notification", "UserPromptSubmit", "Stop", "SubagentStart", "SubagentStop",
                                "PreCompact", "SessionStart", "SessionEnd")


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid")
    input: float = Field(description="USD per million prompt tokens")
    output: float = Field(description="USD per million completion tokens")


class McpServerConfig(BaseModel):
    """One ``[mcp_servers.NAME]`` table (or ``.mcp.json`` entry). Codex's key names are accepted as
    they are (``tool_timeout_sec``, ``startup_timeout_sec``/``_ms``, ``http_headers``, …); a key axon
    does not know is kept in ``model_extra`` and reported as a warning by ``mcp.servers``."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    env_vars: list[str] = Field(default_factory=list, description="names of axon's env vars passed to the server")
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict, description="HTTP headers for a url server",
                                    validation_alias=AliasChoices("headers", "http_headers"))
    env_http_headers: dict[str, str] = Field(default_factory=dict, description="header -> env var holding its value")
    bearer_token_env_var: str | None = Field(None, description="env var holding a bearer token (url servers)")
    timeout: float = Field(60.0, gt=0, description="seconds for one tool call",
                           validation_alias=AliasChoices("timeout", "tool_timeout_sec"))
    startup_timeout: float = Field(10.0, gt=0, description="seconds to connect and list tools",
                                   validation_alias=AliasChoices("startup_timeout", "startup_timeout_sec"))
    enabled: bool = Field(True, description="false: configured but not started")
    enabled_tools: list[str] | None = Field(None, description="only these tools (names as the server lists them)")
    disabled_tools: list[str] = Field(default_factory=list, description="never these tools (after enabled_tools)")

    @model_validator(mode="before")
    @classmethod
    def _milliseconds(cls, data: Any) -> Any:
        """Codex's older ``startup_timeout_ms`` in seconds (``startup_timeout_sec`` wins)."""
        if isinstance(data, dict) and "startup_timeout_ms" in data:
            data = dict(data)
            ms = data.pop("startup_timeout_ms")
            if "startup_timeout" not in data and "startup_timeout_sec" not in data:
                data["startup_timeout"] = ms / 1000 if isinstance(ms, (int, float)) else ms
        return data

    def offers(self, tool: str) -> bool:
        """Whether ``enabled_tools``/``disabled_tools`` let ``tool`` (as the server names it) through."""
        return (self.enabled_tools is None or tool in self.enabled_tools) and tool not in self.disabled_tools


class HookConfig(BaseModel):
    """One ``[[hooks.EVENT]]`` table: a shell command run at that point of the loop."""

    model_config = ConfigDict(extra="forbid")
    matcher: str = Field("", description="tool-name regex (PreToolUse/PostToolUse); empty or * = every tool")
    command: str = Field(min_length=1, description="run by the shell in the project root; JSON on stdin")
    timeout: float = Field(60.0, gt=0, le=3600, description="seconds before its process group is killed")
    type: Literal["command"] = Field("command", description="Claude Code's hook type; only command hooks run")
    source: str = Field("", description="the config file that defined it (set by axon when merging)")

    @field_validator("matcher")
    @classmethod
    def _regex(cls, value: str) -> str:
        import re

        if value.strip() not in ("", "*"):
            try:
                re.compile(value)
            except re.error as e:
                raise ValueError(f"not a valid regular expression ({e})") from None
        return value
