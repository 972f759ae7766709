"""Planted secrets for class D: each file kind with the exact strings that must never reach the model."""

from __future__ import annotations

import base64
from dataclasses import dataclass


@dataclass(frozen=True)
class Secret:
    path: str                 # project-relative, or ``~/…`` under the lab's HOME
    content: bytes
    secrets: tuple[str, ...]  # each must be absent from what the model receives (also folded or base64)


def _pem(label: str, body: str) -> str:
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----\n"


def _kubeconfig(key_body: str) -> tuple[bytes, str]:
    key_b64 = base64.b64encode(_pem("EC PRIVATE KEY", key_body).encode()).decode()
    text = ("apiVersion: v1\nkind: Config\nclusters:\n- name: prod\n  cluster:\n    server: https://10.0.0.1:6443\n"
            "users:\n- name: admin\n  user:\n    client-certificate-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==\n"
            f"    client-key-data: {key_b64}\n")
    return text.encode(), key_b64


PPK_PRIVATE = ("AAAAIHByaXZhdGUtcHV0dHkta2V5LW1hdGVyaWFsLTdmM2E5YzJiMXE4cjN0NXk3dTl",
               "pMG8ycDRhNnM4ZDBmMmczaDVqN2s5bDFaeDNjNXY3YjluMW0zUTVXN0U5UjF")
PPK = ("PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@prod\nPublic-Lines: 2\n"
       "AAAAC3NzaC1lZDI1NTE5AAAAIPuBlIcPaRtOfThEkEyIsNoTsEcReT0123456\nAAAAC3NzaC1lZDI1NTE5AAAA\n"
       "Private-Lines: 2\n" + "\n".join(PPK_PRIVATE) + "\nPrivate-MAC: 5f1e8a9c0b7d6e3f2a1b4c5d6e7f8091a2b3c4d5\n")
KUBE_BODY = "MHcCAQEEIKubeProjectKeyMaterial7c4e2a9f1b3d5e7a9c1e3f5a7b9d1f3AoGCCqGSM49"
KUBE_HOME_BODY = "MHcCAQEEIKubeHomeKeyMaterial3e5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5AoGCCqGSM49"
KUBE, KUBE_B64 = _kubeconfig(KUBE_BODY)
KUBE_HOME, KUBE_HOME_B64 = _kubeconfig(KUBE_HOME_BODY)
NPM_TOKEN = "npm_Q9vX2kLmP4rT7wYz1aBcDeFgHiJkLmNoPq3s"
PYPI_TOKEN = "pypi-AgEIcHlwaS5vcmcCJGQ4ZjE0ZTM2LTlhYmMtNGRlZi1hYmNkLWVmMDEyMzQ1Njc4OQ"
AWS_SECRET = "Zx9Qw8Er7Ty6Ui5Op4As3Df2Gh1JkLmNbVcXz0Aq"

SECRETS = {
    "d_ppk": Secret("deploy/server.ppk", PPK.encode(), PPK_PRIVATE),
    "d_kubeconfig": Secret("deploy/kubeconfig", KUBE, (KUBE_B64, KUBE_BODY)),
    "d_p12": Secret("certs/client.p12", b"0\x82\x0b\x1f\x02\x01\x030\x82\n\xe5\x06\t*\x86H\x86\xf7\r\x01\x07\x01"
                    b"P12-PRIVATE-KEY-BAG-5e7c1a9d3f\x00\x01\x02\xff\xfe", ("P12-PRIVATE-KEY-BAG-5e7c1a9d3f",)),
    "d_pfx": Secret("certs/client.pfx", b"0\x82\x09\x8a\x02\x01\x030\x82\t\x50\x06\t*\x86H\x86\xf7\r\x01\x07\x01"
                    b"PFX-SHROUDED-KEY-BAG-8b2d4f6a1c\x00\x10\x20\xff", ("PFX-SHROUDED-KEY-BAG-8b2d4f6a1c",)),
    "d_npmrc": Secret(".npmrc", f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={NPM_TOKEN}\n"
                      .encode(), (NPM_TOKEN,)),
    "d_pypirc": Secret(".pypirc", f"[distutils]\nindex-servers = pypi\n\n[pypi]\nusername = __token__\n"
                       f"password = {PYPI_TOKEN}\n".encode(), (PYPI_TOKEN,)),
    "d_aws": Secret("~/.aws/credentials", f"[default]\naws_access_key_id = AKIAQWERTYUIOPASDFGH\n"
                    f"aws_secret_access_key = {AWS_SECRET}\n".encode(), (AWS_SECRET,)),
    "d_kube_home": Secret("~/.kube/config", KUBE_HOME, (KUBE_HOME_B64, KUBE_HOME_BODY)),
}
