"""Credential files of every kind never reach the model: PuTTY keys, kubeconfigs, PKCS#12 files,
Docker and gcloud credentials, .npmrc tokens. Inside the sandbox they read as empty, so neither
``cat`` nor ``base64`` nor ``fold`` gets their bytes out (masking alone could not stop the last
two); ``read_file`` of one is never allowed by a mode alone. Asserted on what the scripted server
received."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from tests.fakeserver import ScriptedServer, text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

PPK_PRIVATE = "AAAAIQCanaryPuttyPrivateMaterial7f3a9c0123456789abcdefABCDEFxyz"
PPK = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: ci\nPublic-Lines: 1\n"
       "AAAAC3NzaC1lZDI1NTE5AAAAIPublicPart\nPrivate-Lines: 1\n" + PPK_PRIVATE + "\nPrivate-MAC: 00ff\n")
KUBE_KEY = "-----BEGIN EC PRIVATE KEY-----\nCanaryKubeKeyMaterial5b1eCanaryKubeKeyMaterial5b1e\n-----END EC PRIVATE KEY-----\n"
KUBECONFIG = ("apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    client-key-data: "
              + base64.b64encode(KUBE_KEY.encode()).decode() + "\n    token: canary-kube-token-91ac\n")
P12 = b"\x30\x82\x0a\x1f" + b"canary-p12-bytes-66d0" * 20
DOCKER = '{"auths": {"registry.example.com": {"auth": "Y2FuYXJ5LWRvY2tlci1hdXRoLTQ0ZTA="}}}'
NPMRC = "//registry.example.com/:_authToken=canary-npm-token-0c8d\n"
GCLOUD = '{"type": "authorized_user", "refresh_token": "canary-gcloud-refresh-2d7b"}'


def _plant(project: Path) -> list[str]:
    """The planted secrets; what must not reach the server (also encoded, as base64 or fold would)."""
    home = project.parent / "home"
    files = {home / ".kube" / "config": KUBECONFIG, project / "deploy.ppk": PPK,
             project / "ops" / "kubeconfig": KUBECONFIG, home / ".docker" / "config.json": DOCKER,
             project / ".npmrc": NPMRC, home / ".config" / "gcloud" / "application_default_credentials.json": GCLOUD}
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (project / "creds.p12").write_bytes(P12)
    b64 = base64.b64encode(KUBECONFIG.encode()).decode()
    return [PPK_PRIVATE[8:40], "CanaryKubeKeyMaterial", base64.b64encode(KUBE_KEY.encode()).decode()[20:60],
            "canary-kube-token", "canary-p12-bytes", base64.b64encode(P12).decode()[8:48], "Y2FuYXJ5LWRvY2tlci1hdXRo",
            "canary-npm-token", "canary-gcloud-refresh", b64[40:80], PPK_PRIVATE[8:13]]


def _received(server: ScriptedServer) -> str:
    return json.dumps([r.body for r in server.requests])


@needs_namespaces
def test_sandboxed_commands_see_credential_files_as_empty(server, run_axon, project: Path) -> None:
    secrets = _plant(project)
    command = ("cat ~/.kube/config; cat deploy.ppk ops/kubeconfig .npmrc; base64 creds.p12; base64 ~/.kube/config; "
               "fold -w 5 deploy.ppk; cat ~/.docker/config.json ~/.config/gcloud/application_default_credentials.json; "
               "wc -c deploy.ppk creds.p12 ~/.kube/config; echo end")
    server.add(tool_reply(("bash", {"command": command})), text_reply("done"))
    r = run_axon("run", "show me the credentials", "--yes")
    assert r.code == 0, r.stderr
    out = server.requests[1].messages[-1]["content"]
    assert "end\nexit code 0" in out and "0 total" in out, out          # ran, and every file was empty
    received = _received(server)
    assert [s for s in secrets if s in received] == []
    assert (project / "deploy.ppk").read_text() == PPK                  # hidden, not touched


@pytest.mark.parametrize("path", ["deploy.ppk", "ops/kubeconfig", "creds.p12", ".npmrc", "~/.kube/config",
                                  "~/.docker/config.json", "~/.config/gcloud/application_default_credentials.json"])
def test_read_file_of_a_credential_file_is_not_allowed_by_a_mode(server, run_axon, project: Path, path: str) -> None:
    secrets = _plant(project)
    server.add(tool_reply(("read_file", {"path": path})), text_reply("done"))
    r = run_axon("run", "read it", "--mode", "accept-edits")
    assert r.code == 0, r.stderr
    result = server.requests[1].messages[-1]
    assert result["role"] == "tool" and result["content"].startswith("Permission denied"), result
    assert [s for s in secrets if s in _received(server)] == []
