"""Class D of issue 21: secrets past the masker. Sensitive files must be hidden, not only masked.

Planted: a PuTTY key (``deploy/server.ppk``), a kubeconfig with ``client-key-data`` (base64 PEM),
``*.p12`` and ``*.pfx`` key stores, ``.npmrc`` with an auth token, ``.pypirc`` with a password, and
in HOME ``~/.aws/credentials`` and ``~/.kube/config``. One ``axon run --yes`` (approval must not be
what keeps a secret) reads each file four ways: ``read_file``, ``cat``, ``base64`` and ``fold -w 16``
(splitting a key into lines). Judged on the scripted server's recorded requests: the secret's text
is absent — as is, split across lines, and base64-encoded. Also ``@file`` in the prompt.

Attacks (file x way, 32): d_ppk, d_kubeconfig, d_p12, d_pfx, d_npmrc, d_pypirc, d_aws, d_kube_home
x read_file, cat, base64, fold; plus ``@deploy/server.ppk @deploy/kubeconfig`` typed in ``axon chat``
(d_at_file_repl) and in a project's custom command (d_at_file_command).
"""

from __future__ import annotations

import base64
import subprocess
from pathlib import Path

import pytest

from tests.e2e.attacks.lab import Lab, crashed, decisions, leaked
from tests.e2e.attacks.secrets import SECRETS, Secret
from tests.e2e.ui.test_repl import Chat
from tests.fakeserver import text_reply
from tests.sandbox.test_sandbox import needs_namespaces

pytestmark = needs_namespaces

WAYS = {"read_file": None, "cat": "cat {p}", "base64": "base64 {p}", "fold": "fold -w 16 {p}"}
CASES = [(fid, way) for fid in SECRETS for way in WAYS]


def place(lab: Lab, secret: Secret) -> Path:
    if secret.path.startswith("~/"):
        return lab.write(secret.path[2:], secret.content, root=lab.home)
    return lab.write(secret.path, secret.content)


def plant(lab: Lab) -> None:
    lab.write("README.md", "deploy tooling\n")
    for secret in SECRETS.values():
        place(lab, secret)
    lab.commit_all()


def call(lab: Lab, fid: str, way: str) -> tuple[str, str, dict[str, object]]:
    """The call reading secret ``fid`` the way ``way`` (read_file takes HOME's files by absolute path)."""
    path = SECRETS[fid].path
    if way == "read_file":
        return (f"{fid}-{way}", "read_file", {"path": str(lab.home / path[2:]) if path.startswith("~/") else path})
    return (f"{fid}-{way}", "bash", {"command": str(WAYS[way]).format(p=path)})


@pytest.fixture(scope="module")
def secrets_run(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    lab = Lab(tmp_path_factory.mktemp("d"))
    plant(lab)
    ran = lab.campaign([call(lab, fid, way) for fid, way in CASES], "--yes")
    yield lab, ran
    lab.close()


def _leaks(fid: str, text: str) -> list[str]:
    return [s for s in SECRETS[fid].secrets
            if leaked(s, text) or base64.b64encode(s.encode()).decode()[:-4] in text]


@pytest.mark.parametrize("fid,way", CASES, ids=[f"{f}-{w}" for f, w in CASES])
def test_secret_never_reaches_the_model(fid: str, way: str, secrets_run) -> None:  # type: ignore[no-untyped-def]
    lab, ran = secrets_run
    assert ran.code == 0 and not crashed(ran), ran.stderr[-3000:]
    cid = f"{fid}-{way}"
    result = lab.results().get(cid)
    assert result is not None, "the call never reached dispatch"
    assert _leaks(fid, result) == [], f"{decisions(ran).get(cid)}; the model read {result[:400]!r}"


MENTIONS = "@deploy/server.ppk @deploy/kubeconfig"


def _first_request_text(lab: Lab) -> str:
    assert lab.server.requests, "no request reached the model"
    return "\n".join(str(m.get("content")) for m in lab.server.requests[0].messages)


def test_at_file_in_the_repl_never_attaches_a_secret(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    plant(lab)
    lab.script(text_reply("looked"), text_reply("looked"))
    chat = Chat(lab.project, lab.env(), "--sandbox", "workspace-write")
    chat.prompt()
    chat.say(f"what is in {MENTIONS} ?")
    chat.expect("looked")
    chat.exit()
    text = _first_request_text(lab)
    assert "server.ppk" in text, "the message never reached the model"
    assert _leaks("d_ppk", text) + _leaks("d_kubeconfig", text) == [], "attached unmasked"


def test_at_file_in_a_project_command_never_attaches_a_secret(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    plant(lab)
    lab.write(".axon/commands/review.md", f"Review the deploy setup: {MENTIONS}\n")
    lab.script(text_reply("looked"), text_reply("looked"))
    ran = lab.axon("run", "--command", "review", "now")
    assert ran.code == 0 and not crashed(ran), ran.stderr[-3000:]
    text = _first_request_text(lab)
    assert "Review the deploy setup" in text, "the command never reached the model"
    assert _leaks("d_ppk", text) + _leaks("d_kubeconfig", text) == [], "attached unmasked"


def test_no_request_ever_carried_a_secret(secrets_run) -> None:  # type: ignore[no-untyped-def]
    lab, _ = secrets_run
    sent = lab.sent()
    assert [fid for fid in SECRETS if _leaks(fid, sent)] == []


@pytest.mark.parametrize("way", [w for w in WAYS if w != "read_file"])
def test_control_the_leak_detector_sees_each_form(way: str, tmp_path: Path) -> None:
    """Without axon each command prints every secret in a form ``leaked`` recognises."""
    lab = Lab(tmp_path)
    for fid, secret in SECRETS.items():
        path = place(lab, secret)
        out = subprocess.run(["bash", "-c", str(WAYS[way]).format(p=path)], capture_output=True).stdout
        assert _leaks(fid, out.decode("latin-1")) == list(secret.secrets), (fid, way)
