"""The project's sensitive files a sandboxed command must not see: the Python walk used for small
projects and the ripgrep search used for large ones find the same files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from axon_cli.kernel.ripgrep_path import find_rg
from axon_cli.machinery.sandbox import hidden
from axon_cli.policy.paths import sensitive_reason

TREE = [".env", ".env.local", ".env.example", "src/app.py", "src/keys/server.pem", "deep/a/b/c/id_ed25519",
        "deep/a/b/c/id_ed25519.pub", "config/credentials.json", "node_modules/pkg/.env", ".venv/x/server.key",
        "docs/readme.md", "cfg/secrets.toml", "notes/private.txt", "keys/deploy.ppk", "ops/kubeconfig",
        "ops/prod.kubeconfig", "ops/kubeconfig-staging.yaml", "pkg/kubeconfig_test.go", "certs/client.p12",
        "certs/store.jks", "infra/.kube/config", "infra/.docker/config.json", "app/config.json",
        "gcp/my-project-0123456789ab.json", "gcp/service-account.json", "home/.config/gcloud/credentials.db"]


def _tree(root: Path) -> None:
    for rel in TREE:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x\n")
    os.symlink(root / "docs", root / "docs-link")           # a directory link is not followed


@pytest.mark.skipif(find_rg() is None, reason="ripgrep is not available")
@pytest.mark.parametrize("extra", [(), ("private.txt",)])
def test_the_walk_and_ripgrep_find_the_same_sensitive_files(tmp_path, monkeypatch, extra):
    _tree(tmp_path)
    root = str(tmp_path)
    walked = hidden.project_files(root, extra)                    # small: walked in Python
    monkeypatch.setattr(hidden, "SMALL_PROJECT_ENTRIES", 0)        # as if large: ripgrep
    searched = hidden.project_files(root, extra)
    expected = {".env", ".env.local", "src/keys/server.pem", "deep/a/b/c/id_ed25519", "deep/a/b/c/id_ed25519.pub",
                "config/credentials.json", "cfg/secrets.toml", "keys/deploy.ppk", "ops/kubeconfig",
                "ops/prod.kubeconfig", "ops/kubeconfig-staging.yaml", "certs/client.p12", "certs/store.jks",
                "infra/.kube/config", "infra/.docker/config.json", "gcp/my-project-0123456789ab.json",
                "gcp/service-account.json", "home/.config/gcloud/credentials.db",
                *(["notes/private.txt"] if extra else [])}
    assert {os.path.relpath(p, root) for p in walked} == expected
    assert sorted(walked) == sorted(searched)
    for path in walked:                                           # the permission layer agrees on each
        assert sensitive_reason(os.path.relpath(path, root)) or extra, path
    assert sensitive_reason("pkg/kubeconfig_test.go") is None and sensitive_reason("app/config.json") is None


def test_home_stores_are_the_permission_layers_list():
    for rel in hidden.HOME_STORES:
        assert sensitive_reason("~/" + rel), rel
    for rel in (".ssh", ".kube", ".config/gcloud", ".docker/config.json", ".npmrc", ".pypirc", ".netrc", ".azure",
                ".git-credentials"):
        assert rel in hidden.HOME_STORES or any(rel.startswith(s + "/") for s in hidden.HOME_STORES), rel


def test_a_large_project_is_not_walked(tmp_path):
    for i in range(30):
        (tmp_path / f"f{i}.txt").write_text("x")
    assert hidden._walk_project(str(tmp_path), (), max_entries=20) is None
    assert hidden._walk_project(str(tmp_path), (), max_entries=100) == []
