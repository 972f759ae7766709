"""Unix sockets of user services, which a sandboxed command must not reach.

A read-only mount does not stop ``connect()``: through the Docker socket a command starts a
container with the host's root directory mounted; through an ssh, gpg or password-manager agent it
signs or reads secrets; through the session bus it asks the desktop to run things. The sandbox's
private network namespace already cuts abstract sockets (``@name``); sockets on the filesystem are
cut here: the runtime directory (``$XDG_RUNTIME_DIR``: docker, podman, agents, dbus) reads as
empty (``hidden``), and each socket found is mounted over with an empty file.

Found in known places (``SYSTEM_SOCKETS``, ``HOME_SOCKETS``, the paths ``SSH_AUTH_SOCK``,
``DOCKER_HOST`` and friends name) and by a bounded, cached walk of ``$HOME`` (``MAX_DEPTH`` levels,
skipping the project and dependency/cache folders). ``sandbox_allow_sockets`` (the user's own
config only) names sockets to leave reachable.
"""

from __future__ import annotations

import glob
import os
import stat
from collections.abc import Iterable, Mapping, Sequence

from axon_cli.machinery.sandbox.bounded_walk import Scan, scan_cached

__all__ = ["SYSTEM_SOCKETS", "HOME_SOCKETS", "service_sockets", "allowed_sockets", "ENV_SOCKETS"]

SYSTEM_SOCKETS = ("/run/docker.sock", "/var/run/docker.sock", "/run/podman", "/var/run/podman", "/run/containerd",
                  "/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket", "/run/snapd.socket",
                  "/run/snapd-snap.socket", "/run/libvirt", "/var/run/libvirt", "/run/crio", "/run/buildkit",
                  "/run/incus", "/var/lib/incus/unix.socket", "/var/snap/lxd/common/lxd/unix.socket",
                  "/var/lib/lxd/unix.socket", "/run/k3s")
HOME_SOCKETS = (".docker/run", ".docker/desktop", ".1password", ".rd", ".colima", ".lima", ".orbstack/run",
                ".local/share/containers/podman/machine", ".config/containers/podman/machine",
                ".local/share/keybase", ".bitwarden-ssh-agent.sock", ".gnupg")
ENV_SOCKETS = ("SSH_AUTH_SOCK", "DOCKER_HOST", "CONTAINER_HOST", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
               "PODMAN_SOCKET")
SKIPPED_HOME = frozenset({"node_modules", ".venv", "venv", ".cache", ".npm", ".cargo", ".rustup", ".m2",
                          ".gradle", ".pyenv", ".nvm", "go", "snap", ".git", "site-packages", "__pycache__",
                          ".vscode-server", ".mozilla", ".thunderbird"})
MAX_DEPTH = 5
MAX_ENTRIES = 60_000
MAX_SECONDS = 0.5


def _is_socket(entry: os.DirEntry[str]) -> bool:
    if entry.is_dir(follow_symlinks=False) or entry.is_file(follow_symlinks=False) or entry.is_symlink():
        return False
    return stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode)


def _env_paths(environ: Mapping[str, str]) -> list[str]:
    """Socket paths named by the environment (``unix://…``, ``unix:path=…``, ``path:pid:1``)."""
    out: list[str] = []
    for name in ENV_SOCKETS:
        for value in environ.get(name, "").replace(";", ",").split(","):
            value = value.strip()
            for prefix in ("unix://", "unix:path=", "unix:abstract="):
                if value.startswith(prefix):
                    value = "" if prefix == "unix:abstract=" else value[len(prefix):]
            value = value.split(":", 1)[0] if name == "GPG_AGENT_INFO" else value
            if value.startswith("/"):
                out.append(value)
    return out


def _home_walk(home: str, skip: Iterable[str]) -> list[str]:
    skip_paths = frozenset(os.path.realpath(p) for p in skip)
    scan = scan_cached(("sockets", home, skip_paths),
                       lambda: Scan(home, _is_socket, skip_names=SKIPPED_HOME, skip_paths=skip_paths,
                                    max_depth=MAX_DEPTH, max_entries=MAX_ENTRIES, max_seconds=MAX_SECONDS))
    return scan.run()


def service_sockets(home: str, project_root: str, environ: Mapping[str, str] | None = None) -> list[str]:
    """Candidate paths to cut off: known socket files and folders, and every socket under ``home``
    (outside the project). Not all exist; ``hidden``'s rules apply (real paths, never the project)."""
    environ = os.environ if environ is None else environ
    known = [*SYSTEM_SOCKETS, f"/run/user/{os.getuid()}", *(os.path.join(home, p) for p in HOME_SOCKETS), *_env_paths(environ)]
    for pattern in (os.path.join(home, ".gnupg", "S.*"), "/run/user/*/docker.sock"):
        known += glob.glob(pattern)[:50]
    skip = [project_root] if os.path.isdir(home) else []
    return known + (_home_walk(os.path.realpath(home), skip) if os.path.isdir(home) else [])


def allowed_sockets(entries: Sequence[str], home: str) -> list[str]:
    """``sandbox_allow_sockets`` as real paths (``~`` is ``home``)."""
    out: list[str] = []
    for raw in entries:
        text = raw.strip()
        if text.startswith("~"):
            text = home + text[1:]
        if os.path.isabs(text):
            out.append(os.path.realpath(text))
    return out
