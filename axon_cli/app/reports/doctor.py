"""``axon doctor``: one line per thing that must work — endpoint, sandbox, ripgrep, trust, undo, telemetry — and
where the configuration comes from. Exit code 1 when something that was asked for cannot work
(the endpoint does not answer, an explicit sandbox cannot start)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from axon_cli.machinery.masking.userinfo import hide_userinfo, strip_userinfo
from axon_cli.settings.config import KEYLESS_HINT, LoadedSettings, Settings, endpoint_needs_key

__all__ = ["run_doctor", "check_endpoint", "check_sandbox", "check_ripgrep", "check_trust", "check_undo",
           "check_hooks", "check_telemetry", "config_lines"]

ENDPOINT_TIMEOUT = 5.0
DEFAULT_BASE_URL = "https://api.openai.com/v1"
Check = tuple[bool, str]              # (ok, the line)


def check_endpoint(settings: Settings) -> Check:
    """A quick ``GET /models``: reachable, key accepted, the model listed."""
    import urllib.error
    import urllib.request

    base = (settings.base_url or DEFAULT_BASE_URL).rstrip("/")
    url, base = strip_userinfo(base), hide_userinfo(base)   # urllib takes no userinfo; shown as ***@
    if not settings.api_key and endpoint_needs_key(settings.base_url):
        return False, f"endpoint: FAILED — {base} needs an API key: {KEYLESS_HINT}"
    request = urllib.request.Request(f"{url}/models", headers={"Accept": "application/json"})
    if settings.api_key:
        request.add_header("Authorization", f"Bearer {settings.api_key}")
    try:
        with urllib.request.urlopen(request, timeout=ENDPOINT_TIMEOUT) as response:  # noqa: S310 (the user's URL)
            body = response.read(1 << 20)
    except urllib.error.HTTPError as e:
        if e.code in (401, 403):
            return False, f"endpoint: FAILED — {base}/models answered HTTP {e.code}: the API key was refused"
        return True, f"endpoint: reachable — {base}, but GET /models answered HTTP {e.code}"
    except urllib.error.URLError as e:
        reason = getattr(e.reason, "strerror", None) or str(e.reason)
        return False, f"endpoint: FAILED — cannot connect to {base} ({reason})"
    except TimeoutError:
        return False, f"endpoint: FAILED — {base} did not answer within {ENDPOINT_TIMEOUT:g} s"
    except (OSError, ValueError) as e:
        return False, f"endpoint: FAILED — {base}: {e}"
    try:
        models = [str(m.get("id")) for m in json.loads(body).get("data", []) if isinstance(m, dict)]
    except (ValueError, AttributeError):
        return True, f"endpoint: ok — {base} answered, but /models is not the usual JSON"
    listed = ("lists" if settings.model in models else "does not list") + f" model {settings.model}"
    return True, f"endpoint: ok — {base} ({len(models)} models; {listed})"


def check_sandbox(settings: Settings, root: Path) -> Check:
    from axon_cli.kernel.errors import ConfigError
    from axon_cli.machinery.sandbox import hidden_set, resolve

    try:
        status = resolve(settings.sandbox)
    except ConfigError as e:
        return False, f"sandbox: FAILED — {e}"
    if status.mode == "off":
        why = f"auto: {status.reason}" if status.fell_back else "sandbox = \"off\""
        return True, f"sandbox: off ({why}); bash commands are not confined"
    hidden = hidden_set(root, None, settings.sandbox_hide)
    return True, (f"sandbox: {status.line()}; {len(hidden.dirs) + len(hidden.files)} credential paths "
                  "and sensitive project files read as empty inside")


def check_ripgrep() -> Check:
    from axon_cli.kernel.ripgrep_path import find_rg

    rg = find_rg()
    if rg is None:
        return True, "ripgrep: not found — search_files and list_files use the slower built-in walk"
    try:
        version = subprocess.run([rg, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"ripgrep: FAILED — {rg} does not run ({e})"
    return True, f"ripgrep: {rg} ({(version.splitlines() or ['?'])[0]})"


def check_trust(loaded: LoadedSettings) -> Check:
    """The folder's trust in one line: what waits, what is trusted (``axon trust`` shows the items)."""
    found = loaded.trust.assess()
    if loaded.trust.problem:
        return True, f"trust: {loaded.trust.problem}"
    if not (found.pending or found.trusted or found.for_run):
        return True, "trust: nothing in this folder widens what axon does"
    parts = [f"{len(found.pending)} item(s) waiting (not in force; `axon trust` to review)"] if found.pending else []
    parts += [f"{len(found.trusted)} trusted"] if found.trusted else []
    parts += [f"{len(found.for_run)} trusted for this run"] if found.for_run else []
    return True, "trust: " + ", ".join(parts)


def check_hooks(loaded: LoadedSettings) -> list[str]:
    """One line for the hooks in force, and one for each event axon has no moment for (accepted, never run)."""
    from axon_cli.session.extend.hook_seams import FIRED_EVENTS

    hooks = {event: len(tables) for event, tables in loaded.settings.hooks.items() if tables}
    if not hooks:
        return []
    lines = ["hooks: " + ", ".join(f"{event} {n}" for event, n in hooks.items())]
    for event, n in hooks.items():
        if event not in FIRED_EVENTS:
            lines.append(f"hooks: {event} ({n} hook(s)) is accepted, but axon has no moment for it: "
                         "they never run")
    return lines


def check_undo(settings: Settings, root: Path) -> Check:
    from axon_cli.machinery.snapshots import ProjectSnapshots

    store = ProjectSnapshots.for_settings(root, settings)
    why = store.unavailable()
    if why is not None:
        return True, f"undo: not available — {why}"
    pending = [r for r in store.records() if not r.get("undone")]
    return True, (f"undo: ready — snapshots in {store.dir} ({len(pending)} turn(s) can be undone; files over "
                  f"{settings.snapshot_max_file_mb:g} MB and git-ignored files are not snapshotted)")


def check_telemetry(settings: Settings, env: dict[str, str] | None = None) -> Check:
    """Whether telemetry is on, where it goes, and whether the SDK it needs is installed (not imported)."""
    import importlib.util
    import os

    from axon_cli.settings.telemetry_config import INSTALL_HINT, plan_telemetry

    env = dict(os.environ) if env is None else env
    plan = plan_telemetry(settings.telemetry, env)
    if plan is None:
        return True, "telemetry: off (on with the OTEL_* exporter variables or [telemetry] enabled = true)"
    try:
        installed = importlib.util.find_spec("opentelemetry.sdk") is not None
    except (ImportError, ValueError):
        installed = False
    if not installed:
        return False, f"telemetry: enabled, but OpenTelemetry is not installed — {INSTALL_HINT}"
    where = plan.endpoint or env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or "the OTEL_EXPORTER_OTLP_* default"
    return True, f"telemetry: on — traces {plan.traces}, metrics {plan.metrics}, OTLP {plan.protocol} to {where}"


def config_lines(loaded: LoadedSettings) -> list[str]:
    files = ", ".join(str(f) for f in loaded.files) or "none (defaults, env and flags only)"
    lines = [f"config files: {files}"]
    data = loaded.settings.model_dump()
    for key in sorted(k for k in data if loaded.source(k) != "default"):
        lines.append("  " + setting_line(key, data[key], loaded.source(key), abbreviate_key=False))
    return lines


def setting_line(key: str, value: Any, source: str, abbreviate_key: bool = True) -> str:
    """``key = value  # source`` with what may hold a secret hidden: the API key (its ends, or
    ****), the values of headers and MCP servers' env, then the masker over the whole line."""
    from axon_cli.machinery.masking.written import masked_text

    if key == "api_key" and value:
        value = value[:3] + "…" + value[-4:] if abbreviate_key and len(value) > 12 else "****"
    elif key == "telemetry" and isinstance(value, dict) and value.get("headers"):   # the collector's key
        value = {**value, "headers": _starred(value["headers"])}
    elif key == "mcp_servers" and isinstance(value, dict):
        value = {name: {**server, "env": _starred(server.get("env")), "headers": _starred(server.get("headers"))}
                 if isinstance(server, dict) else server for name, server in value.items()}
    return masked_text(f"{key} = {value!r}  # {source}")


def _starred(values: Any) -> Any:
    return {name: "****" for name in values} if isinstance(values, dict) else values


def run_doctor(loaded: LoadedSettings, root: Path, echo: Callable[[str], None]) -> int:
    from axon_cli.agent.model.served_model import choose_served_model

    settings = loaded.settings
    served = choose_served_model(loaded)     # no model set: the endpoint's only one, as a run would
    endpoint = check_endpoint(settings)
    if served is not None:
        endpoint = endpoint[0], f"{endpoint[1]} — the only model it lists, used because no model is set"
    checks = [endpoint, check_sandbox(settings, root), check_ripgrep(), check_trust(loaded),
              check_undo(settings, root), check_telemetry(settings)]
    for _ok, line in checks:
        echo(line)
    from axon_cli.app.reports.mcp_rules import doctor_mcp_lines
    from axon_cli.policy.project_policy import load_policy

    for line in doctor_mcp_lines(loaded, root, load_policy(loaded, root).rules_with_sources()):
        echo(line)
    for line in check_hooks(loaded) + config_lines(loaded):
        echo(line)
    return 0 if all(ok for ok, _line in checks) else 1
