"""Issue 32, class B: credentials in variables not named like credentials reach the processes axon
starts, and from there the model (``printenv | rev`` runs unasked and slips past the masker).

Planted in axon's environment: the collector's token in ``OTEL_EXPORTER_OTLP_HEADERS``, a password
in ``OPENAI_BASE_URL`` (``http://user:PASS@127.0.0.1:PORT/v1``, the endpoint axon really uses), and
the rest of the class: a token alone in a URL's userinfo (``DEPLOY_URL``), a GitHub token under a
plain name, axon's own API key under another name, a cookie, a personal access token, an npm auth
setting; a SessionStart hook adds a proxy URL with a password and another copy of the key through
``CLAUDE_ENV_FILE``. One ``axon run --yes --sandbox auto`` then reads its environment every way a
child can: ``printenv | rev``, ``env``, ``/proc/self/environ``, Python's ``os.environ``, a
background job, a PostToolUse hook and a stdio MCP server (both outside the sandbox, writing to a
canary folder), a diagnostics command and a language server. Judged on effects: the request bodies the scripted server
received (plain, reversed, base64) and the dumped files; ordinary variables must still arrive.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import TEST_KEY
from tests.e2e.attacks.lab import Lab, crashed, leaked
from tests.e2e.mcp.conftest import DEMO
from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

pytestmark = needs_namespaces

PASS = "PASSSECRET-4b1d9e"                     # in OPENAI_BASE_URL's userinfo
OTEL = "OTELSECRET-8c2f7a"                     # in OTEL_EXPORTER_OTLP_HEADERS
SECRETS = {
    "base_url_password": PASS,
    "otel_headers": OTEL,
    "url_token": "deploytok-5e9a3c1b77",                              # https://TOKEN@host
    "token_plain_name": "ghp_" + "Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5",  # a token under a plain name
    "key_copy": TEST_KEY,                                              # axon's API key under another name
    "cookie": "cookiesecret-1a2b3c4d",
    "pat": "patsecret-9f8e7d6c",
    "npm_auth": "npmauthsecret-3d4c5b6a",
    "hook_proxy_password": "HOOKPASS-7e6d5c4b",                        # set through CLAUDE_ENV_FILE
}
ORDINARY = {"MY_SETTING": "x-setting-ok", "VIRTUAL_ENV": "/opt/venv-marker", "LANG": "C.UTF-8",
            "GIT_AUTHOR_NAME": "Lab Author"}
MCP_SERVER = """import os, runpy, sys
with open(sys.argv[1], "w") as fh:
    fh.write("\\n".join(f"{k}={v}" for k, v in os.environ.items()))
sys.argv = [sys.argv[2]]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
WAYS = {"printenv_rev": "printenv | rev", "env": "env", "proc_environ": "tr '\\0' '\\n' < /proc/self/environ",
        "python": "python3 -c 'import os; print(dict(os.environ))'"}


def environment(lab: Lab) -> dict[str, str]:
    return {"OPENAI_BASE_URL": lab.server.url.replace("://", f"://user:{PASS}@"),
            "OTEL_EXPORTER_OTLP_HEADERS": f"Authorization=Bearer {OTEL}",
            "DEPLOY_URL": f"https://{SECRETS['url_token']}@deploy.example.com/hook",
            "BUILD_SETTING": SECRETS["token_plain_name"], "COPY_OF_KEY": TEST_KEY,
            "SESSION_COOKIE": SECRETS["cookie"], "GH_PAT": SECRETS["pat"],
            "NPM_CONFIG__AUTH": SECRETS["npm_auth"], "AXON_DEBUG": "1",
            "PATH": f"{lab.base / 'bin'}{os.pathsep}{os.environ['PATH']}", **ORDINARY}


def plant(lab: Lab) -> None:
    lab.write("README.md", "env lab\n")
    lab.write("mcp_env.py", MCP_SERVER, root=lab.base)
    fake_ls = Path(__file__).parents[1] / "tools" / "fake_language_server.py"
    lab.write("bin/bash-language-server", f'#!/bin/sh\nenv > lsp.env\nexec "{sys.executable}" "{fake_ls}"\n',
              root=lab.base).chmod(0o755)
    lab.write("run.sh", "echo hi\n")
    hook_proxy = f"http://proxyuser:{SECRETS['hook_proxy_password']}@proxy.example:3128"
    session_start = (f"printf 'export HOOK_PROXY=%s\\nexport HOOK_COPY=%s\\n' '{hook_proxy}' '{TEST_KEY}' "
                     '>> "$CLAUDE_ENV_FILE"')
    lab.user_config("config.toml", f"""diagnostics_timeout = 60

[[hooks.SessionStart]]
command = {json.dumps(session_start)}

[[hooks.PostToolUse]]
matcher = "bash"
command = "env > {lab.canary}/hook.env"

[diagnostics]
"*.txt" = "env > diag.env; true {{file}}"

[mcp_servers.envdump]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(lab.base / "mcp_env.py"))}, {json.dumps(str(lab.canary / "mcp.env"))}, {json.dumps(DEMO)}]
""")
    lab.commit_all()


@pytest.fixture(scope="module")
def env_run(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    lab = Lab(tmp_path_factory.mktemp("b32"))
    plant(lab)
    first = [tool_reply(*((("bash", {"command": cmd})) for cmd in WAYS.values()),
                        ("bash", {"command": "env > job.env", "run_in_background": True}),
                        ("write_file", {"path": "note.txt", "content": "checked by a diagnostics command\n"}),
                        ("tool_search", {"query": "select:mcp__envdump__echo"}), ("read_file", {"path": "run.sh"}),
                        call_ids=[*WAYS, "job", "diag", "activate", "read_sh"])]
    lab.script(*first, tool_reply(("mcp__envdump__echo", {"text": "hi"}),
                                  ("bash", {"command": "until [ -s job.env ]; do sleep 0.05; done", "timeout": 30}),
                                  ("edit_file", {"path": "run.sh", "old_string": "echo hi\n", "new_string": "echo ho\n"}),
                                  call_ids=["mcp", "wait_job", "lsp"]),
               text_reply("done"))
    ran = lab.axon("run", "look around", "--yes", "--output-format", "stream-json", env=environment(lab))
    yield lab, ran
    lab.close()


def _dumps(lab: Lab) -> dict[str, Path]:
    return {"hook": lab.canary / "hook.env", "mcp": lab.canary / "mcp.env", "diagnostics": lab.project / "diag.env",
            "job": lab.project / "job.env", "language_server": lab.project / "lsp.env"}


def test_the_run_completed(env_run) -> None:  # type: ignore[no-untyped-def]
    lab, ran = env_run
    assert not crashed(ran) and ran.code == 0, ran.stderr[-3000:]
    results = lab.results()
    assert set(WAYS) | {"mcp", "wait_job"} <= set(results), results.keys()
    assert results["mcp"] == "hi", results["mcp"]
    for name, path in _dumps(lab).items():
        assert path.is_file() and path.stat().st_size > 0, f"{name}: {path} was not written"


@pytest.mark.parametrize("secret_id", sorted(SECRETS))
def test_no_secret_reaches_the_model(env_run, secret_id: str) -> None:  # type: ignore[no-untyped-def]
    lab, ran = env_run
    secret, sent = SECRETS[secret_id], lab.sent()
    assert lab.results().get("printenv_rev"), "the commands did not run"
    assert not leaked(secret, sent) and not leaked(secret[::-1], sent), secret_id


@pytest.mark.parametrize("dump", ["hook", "mcp", "diagnostics", "job", "language_server"])
def test_no_secret_reaches_other_children(env_run, dump: str) -> None:  # type: ignore[no-untyped-def]
    lab, _ = env_run
    text = _dumps(lab)[dump].read_text(errors="replace")
    assert "MY_SETTING=x-setting-ok" in text            # the dump is a real environment
    found = [sid for sid, secret in SECRETS.items() if secret in text]
    assert found == [], (dump, found)


def test_ordinary_variables_still_reach_commands(env_run) -> None:  # type: ignore[no-untyped-def]
    lab, _ = env_run
    shown = dict(line.split("=", 1) for line in lab.results()["env"].splitlines() if "=" in line)
    for name, value in ORDINARY.items():
        assert shown.get(name) == value, name
    assert shown.get("HOME") == str(lab.home) and "/usr/bin" in shown.get("PATH", "")
    assert shown.get("OPENAI_BASE_URL") == lab.server.url                   # the userinfo removed, not the host
    assert shown.get("DEPLOY_URL") == "https://deploy.example.com/hook"
    assert shown.get("HOOK_PROXY") == "http://proxy.example:3128"            # CLAUDE_ENV_FILE: the same rules
    for name in ("OTEL_EXPORTER_OTLP_HEADERS", "BUILD_SETTING", "COPY_OF_KEY", "HOOK_COPY", "GH_PAT"):
        assert name not in shown, name


def test_the_debug_log_never_holds_the_password(env_run) -> None:  # type: ignore[no-untyped-def]
    lab, _ = env_run
    log = (lab.project / ".axon" / "debug.log").read_text(errors="replace")
    assert "127.0.0.1" in log                            # the base URL is logged, its credentials are not
    assert PASS not in log and OTEL not in log


def _closed_port_url() -> str:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://user:{PASS}@127.0.0.1:{s.getsockname()[1]}/v1"      # nothing listens there


@pytest.mark.parametrize("args", [("doctor",), ("config",), ("run", "hi", "--output-format", "stream-json")],
                         ids=["doctor", "config", "run_cannot_connect"])
def test_nothing_axon_prints_or_logs_holds_the_base_url_password(tmp_path: Path, args: tuple[str, ...]) -> None:
    lab = Lab(tmp_path)
    lab.user_config("config.toml", "max_attempts = 1\n")
    url = lab.server.url.replace("://", f"://user:{PASS}@") if args[0] != "run" else _closed_port_url()
    ran = lab.axon(*args, env={"OPENAI_BASE_URL": url, "AXON_DEBUG": "1"}, timeout=120)
    lab.close()
    assert not crashed(ran)
    assert "127.0.0.1" in ran.stdout + ran.stderr            # the endpoint is named, its password is not
    written = [p.read_text(errors="replace") for p in (lab.project / ".axon").rglob("*") if p.is_file()]
    for text in (ran.stdout, ran.stderr, *written):
        assert PASS not in text
