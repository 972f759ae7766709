"""Settings: defaults < user file < project file < env < flags, with the source of each value.

The named tables of a settings file: ``[prices.MODEL]`` (Price), ``[mcp_servers.NAME]``
(McpServerConfig, also an ``.mcp.json`` entry) and ``[[hooks.EVENT]]`` (HookConfig, and the hook events).
``config.Settings`` holds them; the rest of axon imports them from ``config``.
"""

from __future__ import annotations

import os
import reprlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from axon_cli.kernel.errors import ConfigError
from axon_cli.kernel.loaders import one_line
from axon_cli.kernel.state import read_toml
from axon_cli.settings.mode_names import MODES, Mode
from axon_cli.settings.telemetry_config import TelemetryConfig
from axon_cli.settings.trust.folder import FolderTrust
from axon_cli.settings.trust.widening import CONFIG

__all__ = ["Settings", "MODES", "DEFAULT_IMAGE_MODELS", "Price", "McpServerConfig", "HookConfig", "HookEvent", "HOOK_EVENTS", "LoadedSettings", "load_settings", "user_config_dir", "read_toml", "KEYLESS_HINT", "trust_requested", "folder_trust"]

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



# the models that take images when ``images = "auto"``: regular expressions searched case-insensitively
DEFAULT_IMAGE_MODELS: tuple[str, ...] = (
    r"gpt-4o", r"gpt-4\.1", r"gpt-4-turbo", r"gpt-4-vision", r"gpt-5", r"(^|[/-])o[134](-|$)", r"chatgpt-4o",
    r"claude", r"gemini", r"grok-(2-)?vision", r"grok-4", r"pixtral", r"mistral-small-3", r"mistral-medium",
    r"llava", r"bakllava", r"vision", r"-vl\b", r"-vl-", r"vl:", r"qwen2\.5-omni", r"qwen3-omni", r"gemma-?3",
    r"llama-?4", r"minicpm-v", r"moondream", r"internvl", r"granite3\.2-vision", r"phi-?4-multimodal",
    r"smolvlm", r"idefics",
)



GuidancePart = Literal["constrain", "whole_file", "attach"]
GUIDANCE_PARTS: tuple[GuidancePart, ...] = ("constrain", "whole_file", "attach")


class Settings(BaseModel):
    """Every config key. ``config.example.toml`` documents each with its default."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    model: str = Field("gpt-4o-mini", description="model name sent to the endpoint")
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint; None = api.openai.com")
    api_key: str | None = Field(None, description="prefer the OPENAI_API_KEY env var")
    max_attempts: int = Field(5, ge=1, le=20, description="attempts per model request, retries included")
    retry_base_delay: float = Field(0.5, ge=0, le=60, description="first backoff delay, seconds; doubles")
    request_timeout: float = Field(600.0, gt=0, description="seconds for one model request")
    temperature: float | None = Field(None, ge=0, le=2)
    max_tokens: int | None = Field(None, gt=0, description="completion token cap per request")
    max_turns: int = Field(50, ge=1, description="model requests per `axon run` task")
    mode: Mode = "default"
    sandbox: Literal["auto", "off", "read-only", "workspace-write"] = Field(
        "auto", description="auto = workspace-write where bubblewrap works, else off")
    sandbox_hide: list[str] = Field(default_factory=list, description="more paths/globs that read as empty "
                                    "inside the sandbox")
    sandbox_allow_sockets: list[str] = Field(default_factory=list, description="unix sockets that stay reachable "
                                             "inside the sandbox (the user's config only)")
    env_pass: list[str] = Field(default_factory=list, description="variables (names or NAME* globs) that reach "
                                "commands, hooks, MCP servers and checkers although they look like credentials "
                                "(the user's config only)")
    snapshots: bool = Field(True, description="snapshot the workspace before each turn's changes, for undo")
    snapshot_max_file_mb: float = Field(10.0, gt=0, description="files larger than this are not snapshotted")
    snapshot_max_new_mb: float = Field(50.0, gt=0, description="new or changed content one snapshot copies, at most")
    tool_protocol: Literal["native", "text", "auto"] = Field(
        "auto", description="auto = native calls, plus well-formed text calls in a reply without native ones")
    prompt_profile: Literal["default", "compact"] = "default"
    guidance: Literal["auto", "on", "off"] = Field(
        "auto", description="answer guidance for small models; auto = on for local endpoints and small models")
    guidance_parts: list[GuidancePart] = Field(
        default_factory=lambda: list(GUIDANCE_PARTS),
        description="what guidance does besides reminders: constrain replies that must be calls, whole-file "
                    "edits of small files, attach the files a task names")
    context_window: int = Field(128_000, gt=1000, description="the model's context window in tokens")
    compact_at: float = Field(0.8, gt=0.1, lt=1.0, description="share of context_window that triggers compaction")
    bash_timeout: float = Field(120.0, gt=0, le=600, description="default bash timeout, seconds")
    max_result_chars: int = Field(50_000, ge=1000, description="default cap of a tool result sent to the model")
    prices: dict[str, Price] = Field(default_factory=dict, description="per model, USD per million tokens")
    mcp_servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    images: Literal["auto", "on", "off"] = Field(
        "auto", description="send pictures (@file, read_file, MCP) to the model as images; auto = by the model's name")
    image_models: list[str] = Field(default_factory=lambda: list(DEFAULT_IMAGE_MODELS),
                                    description="regexes over the model name: the models images = auto sends pictures to")
    hooks: dict[HookEvent, list[HookConfig]] = Field(default_factory=dict,
                                                     description="user and project hooks add up")
    notify: Literal["off", "bell", "osc"] = Field(
        "bell", description="chat rings the terminal when a confirmation waits or a long turn ends")
    notify_after: float = Field(30.0, ge=0, description="seconds a turn must take before its end rings")
    telemetry: TelemetryConfig = Field(default_factory=lambda: TelemetryConfig.model_validate({}), description="OpenTelemetry; off by default")
    tool_formats: dict[str, Literal["qwen", "llama", "mistral", "deepseek", "default"]] = Field(
        default_factory=dict, description="model-name substring → text tool-prompt family, before the built-in table")
    diagnostics: dict[str, str] = Field(
        default_factory=dict, description="glob → command checking a file after an edit ({file}: its quoted path); "
                                          "user and project entries add up")
    diagnostics_timeout: float = Field(10.0, gt=0, le=120, description="seconds one diagnostics command may take")
    diagnostics_lsp: bool = Field(True, description="a language server on PATH checks files no [diagnostics] glob "
                                  "matches (inside the sandbox only)")

    @field_validator("image_models")
    @classmethod
    def _image_regexes(cls, value: list[str]) -> list[str]:
        import re

        for pattern in value:
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"{pattern!r} is not a valid regular expression ({e})") from None
        return value

USER_ONLY = ("sandbox_allow_sockets", "env_pass")   # a project file cannot open a socket or pass a credential

ENV_KEYS = {"OPENAI_API_KEY": "api_key", "OPENAI_BASE_URL": "base_url", "AXON_MODEL": "model"}

KEYLESS_HINT = "export OPENAI_API_KEY=sk-... (or point OPENAI_BASE_URL at a local endpoint that needs no key)"



@dataclass
class LoadedSettings:
    settings: Settings
    sources: dict[str, str] = field(default_factory=dict)   # key -> "default" | a file | "env X" | "flag"
    files: list[Path] = field(default_factory=list)
    trust: FolderTrust = field(kw_only=True)    # the project's widening values: in force or waiting
    notices: list[str] = field(default_factory=list, kw_only=True)   # optional files left out, one line each

    def source(self, key: str) -> str:
        return self.sources.get(key, "default")



def user_config_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "axon"



def _explain(err: ValidationError, where: str) -> ConfigError:
    e = err.errors()[0]
    key = ".".join(str(p) for p in e["loc"])
    if e["type"] == "extra_forbidden":
        hint = ""
        if len(e["loc"]) == 1:
            import difflib

            close = difflib.get_close_matches(key, list(Settings.model_fields), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f" (known keys: {', '.join(Settings.model_fields)})"
        return ConfigError(f"{where}: unknown key '{one_line(key, 120)}'{hint}")
    got = one_line(reprlib.repr(e.get("input")), 120)     # a 10 MB value is not echoed back
    return ConfigError(f"{where}: key '{one_line(key, 120)}': {one_line(e['msg'].lower())} (got {got})")



def trust_requested(env: Mapping[str, str]) -> bool:
    """``AXON_TRUST=1`` (or true/yes): the folder is trusted for this run."""
    return env.get("AXON_TRUST", "").strip().lower() in ("1", "true", "yes")



def folder_trust(project_root: Path, for_run: bool = False) -> FolderTrust:
    """The folder's trust, measured against the user's own files (``for_run``: trusted for this run)."""
    return FolderTrust.load(project_root, user_config_dir(), for_run=for_run,
                            default_sandbox=Settings.model_fields["sandbox"].default)



def load_settings(project_root: Path, flags: dict[str, Any] | None = None,
                  env: dict[str, str] | None = None, *, trust_run: bool = False,
                  trust: FolderTrust | None = None) -> LoadedSettings:
    """Merge the layers; every unknown key or wrong type is one ConfigError naming file and key.
    The project file's widening values count only where ``trust`` (default: the folder's record;
    everything the folder holds with ``trust_run`` or ``AXON_TRUST=1``) allows them."""
    env = dict(os.environ) if env is None else env
    trust = trust or folder_trust(project_root, for_run=trust_run or trust_requested(env))
    merged: dict[str, Any] = {}
    sources: dict[str, str] = {}
    files: list[Path] = []
    project_file = project_root / CONFIG
    for path in (user_config_dir() / "config.toml", project_file):
        if not path.is_file():
            continue
        data = read_toml(path)
        try:
            Settings.model_validate(data)
        except ValidationError as e:
            raise _explain(e, str(path)) from None
        if path == project_file:
            data = trust.in_force(CONFIG, {k: v for k, v in data.items() if k not in USER_ONLY})
        files.append(path)
        for key, value in data.items():
            if key == "hooks":            # hooks add up across the files instead of replacing
                value = _add_hooks(merged.get(key), value, path)
            elif key == "diagnostics":    # per glob: the project's entry for a glob replaces the user's
                value = {**(merged.get(key) or {}), **value}
            merged[key] = value
            sources[key] = str(path)
    notices: list[str] = []
    _add_claude_hooks(merged, sources, files, project_root, trust, notices)
    for var, key in ENV_KEYS.items():
        if env.get(var):
            merged[key] = env[var]
            sources[key] = f"env {var}"
    for key, value in (flags or {}).items():
        if value is not None:
            merged[key] = value
            sources[key] = f"flag --{key.replace('_', '-')}"
    try:
        settings = Settings.model_validate(merged)
    except ValidationError as e:
        key = str(err_loc[0]) if (err_loc := e.errors()[0]["loc"]) else ""
        err = _explain(e, sources.get(key, "settings"))
        if sources.get(key, "").startswith("flag "):
            err.exit_code = 2             # a bad flag value is a usage error (README: exit 2)
        raise err from None
    return LoadedSettings(settings, sources, files, trust=trust, notices=notices)



def _add_hooks(earlier: dict[str, Any] | None, tables: dict[str, Any], path: Path) -> dict[str, Any]:
    """The hooks of earlier files (user) followed by this file's (project); each remembers its file."""
    out = {event: list(hooks) for event, hooks in (earlier or {}).items()}
    for event, hooks in tables.items():
        out.setdefault(event, []).extend({**hook, "source": str(path)} for hook in hooks)
    return out



def _add_claude_hooks(merged: dict[str, Any], sources: dict[str, str], files: list[Path], project_root: Path,
                      trust: FolderTrust, notices: list[str]) -> None:
    """Claude Code's settings files add their hooks after axon's own: the user's, then the project's
    (only what folder trust lets through). A project's file that cannot be used (a repository's
    bytes: not JSON, nested too deep, too large) is a notice and its hooks do not run; the user's own
    broken file stays an error."""
    from axon_cli.settings.claude_settings import hook_tables, read_claude_settings, user_claude_settings
    from axon_cli.settings.trust.widening import CLAUDE_LOCAL, CLAUDE_SETTINGS

    places = [(user_claude_settings(), None), (project_root / CLAUDE_SETTINGS, CLAUDE_SETTINGS),
              (project_root / CLAUDE_LOCAL, CLAUDE_LOCAL)]
    for path, source in places:
        if source is not None and path.resolve() == places[0][0].resolve():
            continue                              # the project is the home folder: read once, as the user's
        try:
            data = read_claude_settings(path)
            tables = hook_tables(data, path)          # a broken file is reported even before trust
        except ConfigError as e:
            if source is None:
                raise
            notices.append(f"{e}; its hooks are ignored")
            continue
        if source is not None and tables:
            tables = hook_tables(trust.in_force(source, data), path, strict=False)
        if not tables:
            continue
        files.append(path)
        hooks = merged.setdefault("hooks", {})
        for event, added in tables.items():
            hooks.setdefault(event, []).extend(added)
        sources.setdefault("hooks", str(path))



def endpoint_needs_key(base_url: str | None) -> bool:
    """Hosted endpoints need a key; a local or self-hosted one may not."""
    if not base_url:
        return True
    from urllib.parse import urlparse

    host = (urlparse(base_url).hostname or "").lower()
    return host.endswith(("openai.com", "openrouter.ai", "anthropic.com", "groq.com", "together.xyz",
                          "mistral.ai", "deepseek.com", "fireworks.ai"))
