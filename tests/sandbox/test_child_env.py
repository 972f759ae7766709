"""The one builder of a child process's environment (``machinery/sandbox/child_env.py``) and URL credentials
(``machinery/masking/userinfo.py``): what passes, what never does, and ``env_pass``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from axon_cli.machinery.masking import reset_default
from axon_cli.machinery.masking.userinfo import has_userinfo, hide_userinfo, strip_userinfo
from axon_cli.machinery.sandbox import child_env as module
from axon_cli.machinery.sandbox.child_env import NONINTERACTIVE_ENV, admit, child_env, configure, own_secrets
from axon_cli.settings.config import Settings, load_settings

TOKEN = "ghp_" + "Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5"
KEY = "sk-config-0123456789abcdefghij"


@pytest.fixture(autouse=True)
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No configured policy and a masker built from a clean environment, before and after."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    configure(Settings())
    reset_default()
    yield
    configure(Settings())
    reset_default()


def test_ordinary_variables_pass_and_commands_are_non_interactive() -> None:
    source = {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "VIRTUAL_ENV": "/v", "MY_SETTING": "x",
              "SSH_AUTH_SOCK": "/tmp/agent", "GIT_AUTHOR_NAME": "A", "XAUTHORITY": "/x", "EDITOR": "vim",
              "MULTI": "a\nb", "EMPTY": ""}
    env = child_env(source)
    assert {k: env[k] for k in source if k != "EDITOR"} == {k: v for k, v in source.items() if k != "EDITOR"}
    assert {k: env[k] for k in NONINTERACTIVE_ENV} == NONINTERACTIVE_ENV       # EDITOR=true: no vim waits


@pytest.mark.parametrize("name", ["OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_TRACES_HEADERS", "GITHUB_TOKEN",
                                  "DB_PASSWORD", "DB_PASS", "DB_PWD", "X_SECRET", "API_KEY", "GOOGLE_CREDENTIALS",
                                  "NPM_CONFIG__AUTH", "AUTHORIZATION", "PIP_AUTH_USER", "GH_PAT", "SESSION_COOKIE",
                                  "ANTHROPIC_BASE_URL", "MY_BEARER"])
def test_names_that_hold_credentials_never_pass(name: str) -> None:
    assert name not in child_env({name: "plain-value", "PATH": "/bin"})


@pytest.mark.parametrize(("value", "shown"), [
    ("http://user:SECRETPASS@127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
    ("https://deploytok-5e9a3c1b@deploy.example.com/x", "https://deploy.example.com/x"),
    ("postgres://app:pw@db:5432/app?sslmode=require", "postgres://db:5432/app?sslmode=require"),
    ("http://u:p@ss@proxy:3128", "http://proxy:3128"),                        # an unescaped @ in the password
    ("ssh://git@github.com/o/r.git", "ssh://git@github.com/o/r.git"),          # a user name, no credential
])
def test_url_credentials_are_removed_the_rest_kept(value: str, shown: str) -> None:
    assert child_env({"SOME_URL": value})["SOME_URL"] == shown
    assert strip_userinfo(value) == shown and has_userinfo(value) == (value != shown)


def test_logs_show_url_credentials_as_stars() -> None:
    assert hide_userinfo("GET http://user:pw@h/v1 and https://tok@h2/x") == "GET http://***@h/v1 and https://***@h2/x"
    assert hide_userinfo("git@github.com:o/r, mailto:a@b") == "git@github.com:o/r, mailto:a@b"


def test_a_value_the_masker_would_mask_never_passes_under_any_name() -> None:
    env = child_env({"BUILD_SETTING": TOKEN, "NOTE": f"token {TOKEN} here", "CONN": "Server=db;Password=hunter2x9;",
                     "MULTI": f"line\n{TOKEN}", "PLAIN": "fine"})
    assert set(env) - set(NONINTERACTIVE_ENV) == {"PLAIN"}


def test_axons_own_credentials_never_pass_also_as_substrings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://user:BASEPASS-77aa@127.0.0.1:9/v1")
    configure(Settings(api_key=KEY, telemetry={"headers": {"x-api-key": "collector-key-99zz"}},
                       mcp_servers={"r": {"url": "http://h/mcp", "headers": {"Authorization": "Bearer mcp-tok-123456"}}}))
    reset_default()
    source = {"A": KEY, "B": f"prefix{KEY}suffix", "C": "BASEPASS-77aa", "D": "x collector-key-99zz",
              "E": "mcp-tok-123456", "F": "https://other:BASEPASS-77aa@h/", "OK": "fine"}
    env = child_env(source)
    assert {k: env[k] for k in set(env) - set(NONINTERACTIVE_ENV)} == {"OK": "fine", "F": "https://h/"}   # removed
    assert admit("B", source["B"]) is None and admit("OK", "fine") == "fine"


def test_own_secrets_of_a_configuration() -> None:
    settings = Settings(api_key=KEY, base_url="https://u:pw-1234@api.example/v1",
                        telemetry={"headers": {"Authorization": "Bearer tel-token-1"}})
    assert {KEY, "pw-1234", "Bearer tel-token-1", "tel-token-1"} <= set(own_secrets(settings))
    assert own_secrets(Settings()) == []


def test_env_pass_lets_a_named_credential_through_but_never_axons_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    reset_default()
    configure(Settings(env_pass=["NPM_TOKEN", "DEPLOY_*"]))
    env = child_env({"NPM_TOKEN": "npm-publish-1", "DEPLOY_URL": "https://u:p@h/", "DEPLOY_KEY": KEY,
                     "GITHUB_TOKEN": "t"})
    assert env["NPM_TOKEN"] == "npm-publish-1" and env["DEPLOY_URL"] == "https://u:p@h/"   # as the user set it
    assert "DEPLOY_KEY" not in env and "GITHUB_TOKEN" not in env


def test_env_pass_is_read_from_the_users_config_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    project = tmp_path / "proj"
    (project / ".axon").mkdir(parents=True)
    (project / ".axon" / "config.toml").write_text('env_pass = ["GITHUB_TOKEN"]\n')
    assert load_settings(project, env={"AXON_TRUST": "1"}).settings.env_pass == []
    (tmp_path / "xdg" / "axon").mkdir(parents=True)
    (tmp_path / "xdg" / "axon" / "config.toml").write_text('env_pass = ["NPM_TOKEN"]\n')
    assert load_settings(project, env={}).settings.env_pass == ["NPM_TOKEN"]


def test_configure_replaces_the_policy() -> None:
    configure(Settings(env_pass=["A_TOKEN"], api_key=KEY))
    assert module._policy.passed == ("A_TOKEN",) and KEY in module._policy.secrets
    configure(Settings())
    assert module._policy.passed == () and module._policy.secrets == ()
