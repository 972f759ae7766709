"""Path facts for the policy: sensitive names, inside/outside the project, and resolvers.

``lexical_resolver`` is pure (``~`` and ``..`` only); ``fs_resolver`` also follows symlinks and
expands globs, so it does I/O and lives outside ``decide``.
"""

from __future__ import annotations

import contextlib
import fnmatch
import glob
import itertools
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from axon_cli.policy.sensitive import (
    NOT_SENSITIVE,
    SAMPLES,
    SENSITIVE_DIRS,
    SENSITIVE_FILES,
    SENSITIVE_GLOBS,
    is_sensitive_name,
    sensitive_path_part,
)

__all__ = ["PathFacts", "Resolver", "sensitive_reason", "lexical_resolver", "fs_resolver", "path_facts",
           "SENSITIVE_DESCRIPTION", "expand_home", "SENSITIVE_DIRS", "SENSITIVE_FILES", "SENSITIVE_GLOBS",
           "NOT_SENSITIVE"]

Resolver = Callable[[str], list[str]]

PROTECTED_WRITES = (".axon/permissions.toml", ".axon/config.toml")
SENSITIVE_DESCRIPTION = ("~/.ssh, ~/.aws, ~/.gnupg, ~/.kube, ~/.azure, ~/.config/gcloud, ~/.docker/config.json, .env*, "
                         "*.pem, *.key, *.ppk, *.p12/*.pfx, keystores (*.jks, *.keystore), kubeconfigs, id_rsa*, "
                         "and credential files (.netrc, .git-credentials, credentials.json, service-account keys, "
                         ".npmrc, .pypirc, …)")
_GLOB_CHARS = re.compile(r"[*?\[]")


def _component_sensitive(name: str) -> bool:
    if not _GLOB_CHARS.search(name):
        return is_sensitive_name(name)
    if name in NOT_SENSITIVE:
        return False
    if any(fnmatch.fnmatchcase(name, g) for g in SENSITIVE_GLOBS):
        return True
    if name.strip("*?.") and any(ch.isalnum() or ch == "." for ch in name):     # `cat *.ppk`, `cat .e*`
        return any(fnmatch.fnmatchcase(s, name) for s in SAMPLES if not s.startswith(".") or name[0] == ".")
    return False


def sensitive_reason(path: str, write: bool = False) -> str | None:
    """The sensitive part of ``path`` (a component such as ``.ssh`` or ``.env``), or None."""
    parts = [p for p in re.split(r"[/\\]+", path) if p]
    for part in parts:
        if _component_sensitive(part):
            return part
    together = sensitive_path_part(parts)
    if together:
        return together
    if write and any(path.endswith(p) for p in PROTECTED_WRITES):
        return path
    if write and ".git" in parts:      # .git/config (core.fsmonitor, diff.external) and hooks run code
        return ".git"
    return None


def expand_home(word: str, home: Path) -> str:
    for var in ("${HOME}", "$HOME"):
        if word.startswith(var):
            return str(home) + word[len(var):]
    if word == "~" or word.startswith("~/"):
        return str(home) + word[1:]
    return word


def lexical_resolver(project_root: Path, home: Path) -> Resolver:
    """Absolute, normalised paths without touching the filesystem."""
    def resolve(word: str) -> list[str]:
        w = expand_home(word, home)
        return [os.path.normpath(w if os.path.isabs(w) else os.path.join(project_root, w))]
    return resolve


def fs_resolver(project_root: Path, home: Path, max_matches: int = 200) -> Resolver:
    """Like ``lexical_resolver`` plus symlinks followed and globs expanded (both kept)."""
    lexical = lexical_resolver(project_root, home)

    def resolve(word: str) -> list[str]:
        out = lexical(word)
        if _GLOB_CHARS.search(word):
            with contextlib.suppress(OSError, ValueError, re.error):
                out += [os.path.normpath(m) for m in itertools.islice(glob.iglob(out[0]), max_matches)]
        for p in list(out):
            try:
                real = os.path.realpath(p)
            except (OSError, ValueError):
                continue
            if real not in out:
                out.append(real)
        return out
    return resolve


@dataclass(frozen=True)
class PathFacts:
    raw: str                          # as the tool input or command wrote it
    abs: str                          # absolute (resolved) path
    rel: str | None                   # project-relative POSIX path when inside the project
    sensitive: str | None             # the sensitive component, if any


def path_facts(raw: str, resolve: Resolver, roots: tuple[str, ...], write: bool = False) -> list[PathFacts]:
    """One fact per resolved form of ``raw`` (lexical, real, glob matches)."""
    facts = []
    for absolute in resolve(raw):
        rel = None
        for root in roots:
            if absolute == root:
                rel = ""
            elif absolute.startswith(root.rstrip("/") + "/"):
                rel = str(PurePosixPath(os.path.relpath(absolute, root)))
            if rel is not None:
                break
        sens = sensitive_reason(raw, write) or sensitive_reason(absolute, write)
        facts.append(PathFacts(raw, absolute, rel, sens))
    return facts
