"""What one simple command does: read-only or not, destructive or not, and what it runs in turn.

``unwrap`` sees through wrappers (``env``, ``nice``, ``timeout 5``, ``sudo``, ``bash -c``, ``eval``,
``xargs``, ``find -exec`` …) to the command they run. ``is_read_only`` is an allowlist: a command
not listed, or listed with an option that writes or runs something, is not read-only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from axon_cli.shell.builtin_commands import SAFE_ENV, builtin_read_only, env_runs_code
from axon_cli.shell.git import git_destructive, git_read_only
from axon_cli.shell.readers import reader_read_only

__all__ = ["Unwrapped", "unwrap", "is_read_only", "destructive_reason", "command_name", "SHELLS"]

SHELLS = {"sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh"}
BIN_DIRS = ("/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/usr/local/sbin/")

# Wrappers that only change how the inner command runs (the wrapper itself is not kept as a unit).
_TRANSPARENT = {"command", "builtin", "exec", "env", "nice", "nohup", "time", "timeout", "stdbuf",
                "ionice", "setsid", "eval", "chronic", "unbuffer"}
# Options (of a wrapper) that take a separate argument.
_OPT_ARGS = {
    "env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
    "nice": {"-n", "--adjustment"},
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "stdbuf": {"-i", "-o", "-e", "--input", "--output", "--error"},
    "ionice": {"-c", "-n", "-p", "--class", "--classdata"},
    "sudo": {"-u", "-g", "-C", "-D", "-h", "-p", "-R", "-r", "-t", "-T", "-U", "--user", "--group",
             "--chdir", "--host", "--prompt", "--role", "--type", "--other-user", "--close-from"},
    "doas": {"-u", "-C"},
    "xargs": {"-I", "-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs", "--delimiter",
              "--max-lines", "--max-chars", "--arg-file", "--eof", "--replace", "--process-slot-var"},
    "watch": {"-n", "--interval", "-d", "--differences", "-q", "--equexit"},
    "exec": {"-a"},
    "time": {"-f", "--format", "-o", "--output"},
}


@dataclass
class Unwrapped:
    """What a wrapper runs: argv of inner commands and shell source strings to parse."""

    keep_outer: bool = True           # the wrapper is itself a unit (sudo, xargs, find, watch)
    inner_argv: list[list[str]] = field(default_factory=list)
    inner_source: list[str] = field(default_factory=list)
    outer_read_only: bool | None = None   # None: decided by the allowlist
    inner_assignments: list[str] = field(default_factory=list)   # env A=1 cmd, sudo A=1 cmd: A=1


def command_name(argv: list[str]) -> str:
    """argv[0] without a standard bin directory (``/bin/rm`` → ``rm``)."""
    name = argv[0] if argv else ""
    return name.rsplit("/", 1)[-1] if name.startswith(BIN_DIRS) else name


def _skip_options(name: str, args: list[str]) -> list[str]:
    takes = _OPT_ARGS.get(name, set())
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            return args[i + 1:]
        opt = args[i].split("=", 1)[0]
        i += 2 if opt in takes and "=" not in args[i] else 1
    return args[i:]


def _shell_c(args: list[str]) -> Unwrapped | None:
    i = 0
    while i < len(args):
        arg = args[i]
        if arg in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if not arg.startswith(("-", "+")) or arg in ("-", "--"):
            return None                # runs a script file or reads stdin: not analysable
        if not arg.startswith("--") and "c" in arg[1:]:
            return Unwrapped(keep_outer=False, inner_source=args[i + 1:i + 2] or [""])
        i += 1
    return None


def unwrap(argv: list[str]) -> Unwrapped | None:
    """The command(s) a wrapper runs, or None when ``argv`` is not a wrapper."""
    name, args = command_name(argv), argv[1:]
    if name in SHELLS:
        return _shell_c(args)
    if name == "eval":
        return Unwrapped(keep_outer=False, inner_source=[" ".join(args)])
    if name == "find":
        return _find_exec(args)
    if name == "trap" and len(args) >= 2 and not args[0].startswith("-"):
        return Unwrapped(keep_outer=False, inner_source=[args[0]], outer_read_only=False)
    if name in ("command", "builtin") and args[:1] and args[0] in ("-v", "-V"):
        return Unwrapped(keep_outer=False, outer_read_only=True)
    if name not in _TRANSPARENT and name not in ("sudo", "doas", "xargs", "watch"):
        return None
    rest = _skip_options(name, args)
    assigned: list[str] = []
    if name in ("env", "sudo", "doas"):
        while rest and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", rest[0]):
            assigned, rest = [*assigned, rest[0]], rest[1:]
    if name == "env":
        split = _split_string(args)
        if split is not None:
            return Unwrapped(keep_outer=False, inner_source=[" ".join([split, *rest])], outer_read_only=False)
    if name == "timeout" and rest:
        rest = rest[1:]
    if name == "watch":
        return Unwrapped(inner_source=[" ".join(rest)], outer_read_only=True)
    if name == "xargs":
        return Unwrapped(inner_argv=[rest or ["echo"]], outer_read_only=True)
    keep = name in ("sudo", "doas")
    if not rest:
        return Unwrapped(keep_outer=True, outer_read_only=name in ("env", "time", "command", "builtin") and not assigned)
    return Unwrapped(keep_outer=keep, inner_argv=[rest], outer_read_only=False if keep else None,
                     inner_assignments=assigned)


def _split_string(args: list[str]) -> str | None:
    """The value of ``env -S STRING`` / ``--split-string=STRING``, if given."""
    for i, a in enumerate(args):
        if a in ("-S", "--split-string"):
            return args[i + 1] if i + 1 < len(args) else ""
        if a.startswith("--split-string="):
            return a.split("=", 1)[1]
        if a.startswith("-S"):
            return a[2:]
    return None


def _find_exec(args: list[str]) -> Unwrapped | None:
    inner: list[list[str]] = []
    i = 0
    while i < len(args):
        if args[i] in ("-exec", "-execdir", "-ok", "-okdir"):
            j = i + 1
            while j < len(args) and args[j] not in (";", "+"):
                j += 1
            inner.append(args[i + 1:j] or ["true"])
            i = j
        i += 1
    return Unwrapped(inner_argv=inner, outer_read_only=None) if inner else None


# -- read-only allowlist --------------------------------------------------------------------------
_ALWAYS_RO = {
    "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "pwd", "echo", "printf", "which", "type",
    "whereis", "file", "stat", "du", "df", "cut", "tr", "diff", "cmp", "comm", "basename", "dirname",
    "realpath", "readlink", "whoami", "id", "uname", "printenv", "true", "false", "test", "[", "[[",
    "sha256sum", "sha1sum", "sha512sum", "md5sum", "cksum", "b2sum", "nl", "od", "hexdump", "strings",
    "column", "jq", "tac", "rev", "fold", "expand", "unexpand", "seq", "sleep", "cd", "pushd", "popd",
    "ps", "uptime", "free", "nproc", "groups", "locale", "tty", "lsblk", "cal", "zcat", "bzcat", "xzcat",
    "zgrep", "paste", "join", "look", "apropos", "whatis", "getconf", "arch", "lscpu", "dirs", "hash",
    "jobs", "wait", ":", "exit", "return", "shift", "set", "unset", "export", "local", "declare", "read",
    "shopt", "alias", "history", "info", "man", "tldr",
}
_WRITE_OPTS = {
    "date": ("-s", "--set"),
    "fd": ("-x", "-X", "--exec", "--exec-batch"),
    "sort": ("-o", "--output", "--compress-program"), "rg": ("--pre", "--hostname-bin", "--pre-glob"),
    "tree": ("-o", "-R"), "file": ("-C", "--compile"), "info": ("-o", "--output", "--dribble"),
    "uniq": (), "xxd": ("-r",), "man": ("-P", "-H", "--html", "--pager", "--browser"),
}


_CLUSTERED = {"sort", "fd", "tree"}    # short options combine: `sort -mo out` writes out


def _has_opt(args: list[str], opts: tuple[str, ...], clustered: bool = False) -> bool:
    for a in args:
        short_cluster = clustered and a.startswith("-") and not a.startswith("--")
        for o in opts:
            if a == o or a.startswith(o + "=") or (len(o) == 2 and not o.startswith("--")
                                                    and a.startswith(o) and not a.startswith("--")):
                return True
            if short_cluster and len(o) == 2 and o[1] in a[1:]:
                return True
    return False


def is_read_only(argv: list[str], assignments: list[str] | None = None) -> bool:
    """Whether this one simple command (already unwrapped) only reads. ``assignments`` are its
    ``NAME=value`` prefixes; with no command they are plain shell assignments (``x=1``)."""
    if not argv:                       # x=1: harmless unless it changes what programs run (PATH=…)
        return not any(env_runs_code(a) for a in assignments or [])
    if any(a.split("=", 1)[0] not in SAFE_ENV and not a.startswith("LC_") for a in assignments or []):
        return False                   # PAGER=…, GIT_EXTERNAL_DIFF=…, LD_PRELOAD=… can run anything
    name, args = command_name(argv), argv[1:]
    builtin = builtin_read_only(name, args)
    if builtin is not None:
        return builtin and name in _ALWAYS_RO
    if name == "git":
        return git_read_only(args)
    reader = reader_read_only(name, args)
    if reader is not None:
        return reader
    if name in _WRITE_OPTS and _has_opt(args, _WRITE_OPTS[name], name in _CLUSTERED):
        return False
    if name == "find":
        bad = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls")
        return not any(a in bad for a in args)
    if name in ("uniq", "xxd"):
        return len([a for a in args if not a.startswith("-")]) <= 1
    if name == "hostname":
        return not [a for a in args if not a.startswith("-")]
    if name in ("rg", "fd", "sort", "tree", "date", "env", "nl"):
        return True
    return name in _ALWAYS_RO


# -- destructive -----------------------------------------------------------------------------------
_DESTRUCTIVE = {
    "rm": "deletes files", "rmdir": "deletes directories", "unlink": "deletes a file",
    "shred": "destroys file contents", "chmod": "changes permissions", "chown": "changes ownership",
    "chgrp": "changes ownership", "kill": "kills processes", "killall": "kills processes",
    "pkill": "kills processes", "sudo": "runs as root", "doas": "runs as root", "truncate": "truncates files",
    "reboot": "reboots", "shutdown": "shuts down", "halt": "halts", "poweroff": "powers off",
    "mkswap": "formats a device", "fdisk": "partitions a disk", "parted": "partitions a disk",
    "crontab": "changes the crontab",
}
_PKG = {"pip": ("install", "uninstall"), "pip3": ("install", "uninstall"), "npm": ("install", "i", "ci", "add",
        "uninstall", "remove", "rm"), "yarn": ("add", "install", "remove"), "pnpm": ("add", "install", "i",
        "remove"), "apt": ("install", "remove", "purge"), "apt-get": ("install", "remove", "purge"),
        "brew": ("install", "uninstall"), "cargo": ("install",), "gem": ("install",), "go": ("install",),
        "dnf": ("install", "remove"), "yum": ("install", "remove"), "pacman": ("-S", "-R"),
        "poetry": ("add", "remove"), "conda": ("install", "remove"), "uv": ("add", "remove", "pip"),
        "apk": ("add", "del"), "snap": ("install", "remove")}


def destructive_reason(argv: list[str]) -> str | None:
    """Why this simple command is destructive, or None."""
    if not argv:
        return None
    name, args = command_name(argv), argv[1:]
    if name.startswith("mkfs"):
        return "mkfs formats a device"
    if name in _DESTRUCTIVE:
        return f"{name} {_DESTRUCTIVE[name]}"
    if name == "git":
        return git_destructive(args)
    if name == "find" and "-delete" in args:
        return "find -delete deletes files"
    if name in _PKG and any(a in _PKG[name] for a in args[:3]):
        return f"{name} installs or removes packages"
    if name == "rsync" and any(a.startswith("--delete") for a in args):
        return "rsync --delete deletes files"
    if name in ("docker", "podman") and args[:1] and args[0] in ("rm", "rmi", "prune", "system", "kill"):
        return f"{name} {args[0]} removes containers or data"
    return None
