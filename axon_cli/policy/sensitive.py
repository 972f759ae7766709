"""The one list of sensitive paths: credential stores and key files.

It feeds both guards: the permission layer (``paths.sensitive_reason``: a sensitive path is never
allowed by a mode alone) and the sandbox (``machinery/sandbox/hidden.py``: the same files read as empty
inside). ``is_sensitive_name`` is the exact test of one path component; ``SEARCH_GLOBS`` is a
the same test written as ripgrep globs (with ``SEARCH_EXCLUDES``).
"""

from __future__ import annotations

import fnmatch
import re

__all__ = ["SENSITIVE_DIRS", "SENSITIVE_FILES", "SENSITIVE_GLOBS", "SENSITIVE_PATHS", "NOT_SENSITIVE",
           "SEARCH_GLOBS", "SEARCH_EXCLUDES", "HOME_FILES", "is_sensitive_name", "sensitive_path_part", "SAMPLES"]

# Directories whose whole content is credentials (at any depth: ~/.ssh, a project's .aws/).
SENSITIVE_DIRS = frozenset({".ssh", ".aws", ".gnupg", ".azure", ".kube", ".password-store"})
# Exact file names.
SENSITIVE_FILES = frozenset({".netrc", "_netrc", ".git-credentials", "credentials.json", ".npmrc", ".pypirc",
                             ".pgpass", ".boto", ".dockercfg", "secrets.toml", ".htpasswd", "kubeconfig",
                             "application_default_credentials.json"})
# File name shapes: env files, PEM/DER keys, SSH and PuTTY keys, PKCS#12, Java keystores, kubeconfigs,
# service-account keys (Google's downloaded name is <project>-<12 hex>.json).
SENSITIVE_GLOBS = (".env*", "*.pem", "*.key", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "*.p12",
                   "*.pfx", "*.keystore", "*.jks", "*.ppk", "*.kubeconfig", "kubeconfig[-_.]*", "*.p8",
                   "*service[-_]account*.json", "sa[-_]key*.json", "*[-_]sa[-_]key*.json", "*-" + "[0-9a-f]" * 12 + ".json")
# Several components that are sensitive together (``config.json`` alone is not).
SENSITIVE_PATHS = (".docker/config.json", ".config/gcloud", ".config/gh")
NOT_SENSITIVE = frozenset({".env.example", ".env.sample", ".env.template", ".env.dist"})
# Source and documentation about kubeconfigs (kubeconfig_test.go, kubeconfig.md) are no kubeconfigs.
_CODE_SUFFIXES = (".go", ".py", ".rs", ".ts", ".js", ".java", ".kt", ".rb", ".md", ".rst", ".txt", ".sh", ".c",
                  ".h", ".cc", ".cpp", ".cs", ".swift", ".html", ".tf", ".j2", ".tpl", ".tmpl")
# User-level files hidden from the sandbox besides SENSITIVE_DIRS and SENSITIVE_PATHS (relative to home).
HOME_FILES = (".netrc", "_netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".boto", ".dockercfg",
              ".kube/config", ".config/gcloud/application_default_credentials.json")
SEARCH_GLOBS = (*SENSITIVE_GLOBS, *sorted(SENSITIVE_FILES), *(f"**/{d}/**" for d in sorted(SENSITIVE_DIRS)),
                *(f"**/{p}" if "." in p.rsplit("/", 1)[-1] else f"**/{p}/**" for p in SENSITIVE_PATHS))
# What ripgrep must leave out of SEARCH_GLOBS' hits so that it finds exactly what is_sensitive_name says.
SEARCH_EXCLUDES = (*sorted(NOT_SENSITIVE), *(f"kubeconfig*{suffix}" for suffix in _CODE_SUFFIXES))
SAMPLES = sorted(SENSITIVE_DIRS | SENSITIVE_FILES | {".env", "id_rsa", "x.pem", "x.key", "x.p12", "x.ppk", "x.jks",
                                                     "x.kubeconfig", "x.pfx", "x.keystore"})
_GLOBS = re.compile("|".join(fnmatch.translate(g) for g in SENSITIVE_GLOBS))
_PATHS = tuple(tuple(p.split("/")) for p in SENSITIVE_PATHS)


def is_sensitive_name(name: str) -> bool:
    """Whether one path component (a file or directory name, no glob characters) is sensitive."""
    if name in NOT_SENSITIVE:
        return False
    if name in SENSITIVE_DIRS or name in SENSITIVE_FILES:
        return True
    if not _GLOBS.match(name):
        return False
    return not (name.startswith("kubeconfig") and name.endswith(_CODE_SUFFIXES))


def sensitive_path_part(parts: list[str]) -> str | None:
    """The first run of components that is sensitive only together (``.docker/config.json``), or None."""
    for run in _PATHS:
        n = len(run)
        for i in range(len(parts) - n + 1):
            if tuple(parts[i:i + n]) == run:
                return "/".join(run)
    return None
