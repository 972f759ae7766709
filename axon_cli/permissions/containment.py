"""When a shell command may run without asking because the sandbox and the snapshot make it safe.

With a sandbox that confines writes to the workspace (no network) and a snapshot that can restore
the workspace, a command in ``default`` mode needs no prompt when nothing it does could reach past
the workspace or destroy a file the snapshot does not hold: "sandboxed, undoable". Still asked:
programs that need the network or act beyond the workspace (``git push``, package installs and
publishing, ``kill``, ``sudo``, daemons such as docker), writes outside the project, and
deleting or overwriting files the snapshot does not cover (ignored by git, over the size cap) or
whose targets cannot be seen (``xargs rm``, ``rm $(…)``, ``cd d && rm x``). Programs whose own
file operations are opaque (``make``, ``pytest``, ``python script.py``) run confined.

Pure: the runtime passes the facts in (``Containment``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from axon_cli.permissions.shell_facts import command_name
from axon_cli.permissions.shell_readers import script_words

if TYPE_CHECKING:
    from axon_cli.permissions.decision_context import Containment, DecisionContext
    from axon_cli.permissions.shell import CommandAnalysis, Unit

__all__ = ["not_contained", "file_targets", "operands", "reaches_out", "SANDBOXED_UNDOABLE"]

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
_ALL_OPERANDS = frozenset({"rm", "rmdir", "unlink", "shred", "truncate", "mv", "tee", "rsync"})
_DEST_OPERAND = frozenset({"cp", "ln", "install"})
_OPT_VALUES = {"truncate": {"-s", "--size", "-r", "--reference"}, "cp": {"-t", "-S", "--suffix"},
               "mv": {"-t", "-S", "--suffix"}, "ln": {"-t", "-S", "--suffix"},
               "install": {"-t", "-m", "-o", "-g", "-S", "--mode", "--owner", "--group"},
               "touch": {"-r", "-d", "-t", "--reference", "--date"}, "mkdir": {"-m", "--mode"},
               "mkfifo": {"-m", "--mode"}}


def operands(name: str, args: list[str]) -> list[str]:
    """The non-option arguments of ``name`` (options that take a value skip it)."""
    takes = _OPT_VALUES.get(name, set())
    out: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            return out + args[i + 1:]
        if a.startswith("-") and a != "-":
            i += 2 if a in takes else 1
            continue
        out.append(a)
        i += 1
    return out


def _target_dir_option(args: list[str]) -> list[str]:
    for i, a in enumerate(args):
        if a == "-t" and i + 1 < len(args):
            return [args[i + 1]]
        if a.startswith("--target-directory="):
            return [a.split("=", 1)[1]]
    return []


def file_targets(argv: list[str]) -> list[str] | None:
    """The files this simple command deletes or overwrites ([] for none); None when it does but the
    targets cannot be seen (no operands: they come from stdin; ``$…``, ``{}``: filled in later)."""
    name, args = command_name(argv), argv[1:]
    if name == "dd":
        return [a[3:] for a in args if a.startswith("of=")]
    if name == "mv":
        targets = _target_dir_option(args) + operands(name, args)
    elif name in _ALL_OPERANDS:
        targets = operands(name, args)[-1:] if name == "rsync" else operands(name, args)
    elif name in _DEST_OPERAND:
        targets = _target_dir_option(args) or operands(name, args)[-1:]
    elif name == "chmod":
        targets = operands(name, args)[1:]
    elif name == "sed" and any(a.startswith("--in-place") or (a[:1] == "-" and a[1:2] != "-" and "i" in a)
                               for a in args):
        skip = script_words(name, args)
        targets = [a for i, a in enumerate(args) if i not in skip and not a.startswith("-")]
    elif name == "find" and "-delete" in args:
        first = next((i for i, a in enumerate(args) if a[:1] in "-(!"), len(args))
        targets = args[:first] or ["."]
    elif name in ("perl", "ruby") and any(a[:1] == "-" and "i" in a[1:] for a in args) or name == "patch":
        return None
    else:
        return []
    if not targets or any(ch in _home_relative(t) for t in targets for ch in "$`{}"):
        return None
    return targets


def _home_relative(word: str) -> str:
    """``word`` without a leading ``$HOME``/``${HOME}`` (which the path resolver expands)."""
    for var in ("${HOME}", "$HOME"):
        if word == var or word.startswith(var + "/"):
            return word[len(var):]
    return word


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
        targets = file_targets(unit.argv) if unit.argv else []
        if targets is None:
            return f"cannot tell which files {command_name(unit.argv)} changes"
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
