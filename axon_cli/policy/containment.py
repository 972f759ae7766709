"""When a shell command may run without asking because the sandbox and the snapshot make it safe.

With a sandbox that confines writes to the workspace (no network) and a snapshot that can restore
the workspace, a command in ``default`` mode needs no prompt when nothing it does could reach past
the workspace or destroy a file the snapshot does not hold: "sandboxed, undoable". Still asked:
programs that need the network or act beyond the workspace (``git push``, package installs and
publishing, ``kill``, ``sudo``, daemons such as docker), writes outside the project, and
deleting or overwriting files the snapshot does not cover (over the size cap, in a regenerable
directory such as ``node_modules``) or whose targets cannot be seen (``xargs rm``, ``rm $(…)``,
``cd d && rm x``), and commands whose program the analysis cannot see (``opaque``). Programs whose own
file operations are opaque (``make``, ``pytest``, ``python script.py``) run confined.

Pure: the runtime passes the facts in (``Containment``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from axon_cli.shell.facts import command_name

if TYPE_CHECKING:
    from axon_cli.policy.decision_context import Containment, DecisionContext
    from axon_cli.shell.analyze import CommandAnalysis, Unit

__all__ = ["not_contained", "changed_words", "reaches_out", "SANDBOXED_UNDOABLE", "NETWORK"]

SANDBOXED_UNDOABLE = "sandboxed, undoable"
NETWORK = frozenset({
    "curl", "wget", "ssh", "scp", "sftp", "nc", "ncat", "netcat", "telnet", "ftp", "ping", "dig", "nslookup",
    "host", "http", "https", "aria2c", "gh", "aws", "gcloud", "gsutil", "az", "kubectl", "helm", "terraform",
    "ansible", "ansible-playbook", "vercel", "netlify", "heroku", "fly", "flyctl", "firebase", "twine",
})
BEYOND = frozenset({
    "kill", "killall", "pkill", "sudo", "doas", "su", "reboot", "shutdown", "halt", "poweroff", "mkswap",
    "fdisk", "parted", "crontab", "systemctl", "service", "launchctl", "at", "docker", "podman", "chown",
    "chgrp", "mount", "umount", "passwd", "useradd", "usermod", "loginctl",
})
_GIT_NETWORK = frozenset({"push", "pull", "fetch", "clone", "ls-remote", "submodule", "remote"})
_PUBLISH = {"npm": {"publish", "login", "adduser"}, "yarn": {"publish", "npm"}, "pnpm": {"publish"},
            "cargo": {"publish", "login"}, "gem": {"push"}, "poetry": {"publish"}, "uv": {"publish"}}
def changed_words(unit: Unit) -> list[str]:
    """The words naming files this simple command deletes, overwrites or edits (the analysis's facts)."""
    return [w.rstrip("/") or w for w in unit.deletes + unit.overwrites + unit.edits + unit.moves]


def reaches_out(argv: list[str]) -> str | None:
    """Why this simple command needs the network or acts beyond the workspace (git aside: see
    ``git_effects``)."""
    name, args = command_name(argv), argv[1:]
    words = [a for a in args if not a.startswith("-")]
    if name in NETWORK:
        return f"{name} needs the network"
    if name in BEYOND or name.startswith("mkfs"):
        return f"{name} acts beyond the workspace"
    if name in _PUBLISH and words and words[0] in _PUBLISH[name]:
        return f"{name} {words[0]} publishes"
    if name == "rsync" and any(":" in w for w in words):
        return "rsync to a remote host needs the network"
    return None


def _beyond(argv: list[str]) -> str | None:
    """Why this simple command needs the network, acts beyond the workspace or deletes what the
    snapshot does not hold."""
    name, words = command_name(argv), [a for a in argv[1:] if not a.startswith("-")]
    if name == "git" and words and words[0] in _GIT_NETWORK:
        return f"git {words[0]} needs the network"
    if name == "git" and words and words[0] == "clean":
        return "git clean deletes files the snapshot does not hold"
    return reaches_out(argv)


def not_contained(units: list[Unit], ctx: DecisionContext, c: Containment, a: CommandAnalysis) -> str | None:
    """Why ``units`` (the simple commands of ``a`` that neither a rule nor read-only-ness allows)
    are not "sandboxed, undoable"; None when they are."""
    if not c.applies or c.uncovered is None:
        return "no sandbox or no snapshot"
    if any("packages" in r for r in a.destructive_reasons):
        return next(r for r in a.destructive_reasons if "packages" in r)
    changes_dir = any(command_name(u.argv) in ("cd", "pushd", "popd") for u in a.units if u.argv)
    check: list[str] = []
    for unit in units:
        why = _beyond(unit.argv) if unit.argv else None
        if why:
            return why
        if unit.opaque:
            return unit.opaque
        targets = changed_words(unit)
        if targets and changes_dir:
            return "changes directory before changing files"
        check += targets + unit.write_paths
    absolute: list[str] = []
    for word in check:
        for f in ctx.facts(word, True):
            if f.rel is None:
                return f"writes outside the project ({f.abs})"
            absolute.append(f.abs)
    missing = c.uncovered(absolute) if absolute else {}
    if missing:
        path, why = next(iter(missing.items()))
        shown = next((f.rel for w in check for f in ctx.facts(w, True) if f.abs == path and f.rel), path)
        return f"{shown} {why}"
    return None
