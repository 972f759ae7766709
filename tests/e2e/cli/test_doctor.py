"""``axon doctor`` through the real command: endpoint, sandbox, ripgrep, trust, undo, config sources."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.conftest import TEST_KEY
from tests.sandbox.test_sandbox import NO_NAMESPACES


def _lines(stdout: str) -> dict[str, str]:
    return {line.split(":", 1)[0]: line for line in stdout.splitlines() if not line.startswith(" ")}


def test_doctor_reports_every_check(run_axon, server, project: Path) -> None:
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text('sandbox_hide = ["*.sqlite"]\n')
    r = run_axon("doctor")
    assert r.code == 0, r.stdout + r.stderr
    lines = _lines(r.stdout)
    assert lines["endpoint"] == f"endpoint: ok — {server.url} (1 models; lists model test-model)"
    if NO_NAMESPACES is None:
        assert lines["sandbox"].startswith("sandbox: workspace-write (auto: bubblewrap works here (")
    assert lines["ripgrep"].startswith("ripgrep: ") and "(ripgrep " in lines["ripgrep"]
    assert lines["trust"] == "trust: nothing in this folder widens what axon does"
    assert lines["undo"].startswith("undo: ready — snapshots in ") and "0 turn(s) can be undone" in lines["undo"]
    assert lines["config files"] == f"config files: {project / '.axon' / 'config.toml'}"
    assert f"  sandbox_hide = ['*.sqlite']  # {project / '.axon' / 'config.toml'}" in r.stdout
    assert "  base_url = " in r.stdout and TEST_KEY not in r.stdout and "  api_key = '****'  # env OPENAI_API_KEY" in r.stdout
    assert server.requests == []                       # GET /models only, no completion
    (project / ".axon" / "permissions.toml").write_text('allow = ["bash(make *)"]\n')
    r = run_axon("doctor")
    assert _lines(r.stdout)["trust"] == "trust: 1 item(s) waiting (not in force; `axon trust` to review)"


def test_doctor_says_what_failed(run_axon, project: Path) -> None:
    r = run_axon("doctor", env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "PATH": str(Path(sys.executable).parent)})
    assert r.code == 1
    lines = _lines(r.stdout)
    assert lines["endpoint"].startswith("endpoint: FAILED — cannot connect to http://127.0.0.1:9/v1 (")
    assert lines["sandbox"] == ("sandbox: off (auto: bubblewrap is not installed: apt install bubblewrap); bash "
                                "commands are not confined")
    assert lines["undo"] == "undo: not available — git is not installed"
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text('sandbox = "workspace-write"\n')
    r = run_axon("doctor", env={"PATH": str(Path(sys.executable).parent)})
    assert r.code == 1 and "Traceback" not in r.stderr
    assert _lines(r.stdout)["sandbox"] == ("sandbox: FAILED — sandbox 'workspace-write' needs bubblewrap: apt install "
                                           "bubblewrap (or use --sandbox off)")


SECRETS = ("abcd1234efgh5678ijkl", "Bearer-zyx987wvu654tsr321", "q1w2e3r4t5y6u7i8o9p0", "collector-key-5f4e3d2c1b")


def test_config_and_doctor_show_no_secret_from_the_config(run_axon, axon_env: dict[str, str]) -> None:
    """MCP servers' env and headers and the telemetry headers carry tokens: `axon config` and
    `axon doctor` print every setting, and none of those values may reach the terminal."""
    user_config = Path(axon_env["XDG_CONFIG_HOME"]) / "axon" / "config.toml"
    user_config.parent.mkdir(parents=True, exist_ok=True)
    user_config.write_text(
        '[mcp_servers.gh]\ncommand = "gh-mcp"\n'
        f'env = {{ GITHUB_TOKEN = "{SECRETS[0]}", PLAIN = "{SECRETS[2]}" }}\n'
        '[mcp_servers.web]\nurl = "https://mcp.example.invalid/v1"\n'
        f'headers = {{ Authorization = "Bearer {SECRETS[1]}" }}\n'
        f'[telemetry]\nheaders = {{ "x-honeycomb-team" = "{SECRETS[3]}" }}\n')
    for command in ("config", "doctor"):
        r = run_axon(command)
        assert "mcp_servers" in r.stdout and "gh-mcp" in r.stdout, r.stdout + r.stderr   # the setting is shown
        leaked = [s for s in SECRETS if s in r.stdout + r.stderr]
        assert leaked == [], f"axon {command} printed {leaked}"
