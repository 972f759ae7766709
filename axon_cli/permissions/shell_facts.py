"""What one simple command does: read-only or not, destructive or not, and what it runs in turn.

``unwrap`` sees through wrappers (``env``, ``nice``, ``timeout 5``, ``sudo``, ``bash -c``, ``eval``,
``xargs``, ``find -exec`` …) to the command they run. ``is_read_only`` is an allowlist: a command
not listed, or listed with an option that writes or runs something, is not read-only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from axon_cli.permissions.shell_builtins import SAFE_ENV, builtin_read_only
from axon_cli.permissions.shell_readers import reader_read_only

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
    for i, arg in enumerate(args):
        if not arg.startswith("-") or arg in ("-", "--"):
            return None                # runs a script file or reads stdin: not analysable
        if not arg.startswith("--") and "c" in arg[1:]:
            return Unwrapped(keep_outer=False, inner_source=args[i + 1:i + 2] or [""])
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
    if name in ("command", "builtin") and args[:1] and args[0] in ("-v", "-V"):
        return Unwrapped(keep_outer=False, outer_read_only=True)
    if name not in _TRANSPARENT and name not in ("sudo", "doas", "xargs", "watch"):
        return None
    rest = _skip_options(name, args)
    if name == "env":
        while rest and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", rest[0]):
            rest = rest[1:]
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
        return Unwrapped(keep_outer=True, outer_read_only=name in ("env", "time", "command", "builtin"))
    return Unwrapped(keep_outer=keep, inner_argv=[rest], outer_read_only=False if keep else None)


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
_GIT_RO = {"status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog",
           "grep", "cat-file", "ls-tree", "whatchanged", "rev-list", "merge-base", "show-ref", "annotate",
           "count-objects", "ls-remote", "name-rev", "var", "check-ignore", "diff-tree", "diff-files",
           "diff-index", "for-each-ref", "help", "version"}
_WRITE_OPTS = {
    "sort": ("-o", "--output"), "tree": ("-o",), "rg": ("--pre",), "date": ("-s", "--set"),
    "fd": ("-x", "-X", "--exec", "--exec-batch"), "git": ("--output", "--ext-diff", "--textconv"),
    "uniq": (), "xxd": ("-r",), "man": ("-P", "-H", "--html", "--pager"), "info": ("-o", "--output"),
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


def _git_read_only(args: list[str]) -> bool:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] in ("-c", "--exec-path", "--config-env") or args[i].startswith(("-c", "--config-env")):
            return False               # -c core.pager=… can run anything
        i += 2 if args[i] in ("-C", "--git-dir", "--work-tree", "--namespace") else 1
    if i >= len(args):
        return True
    sub, rest = args[i], args[i + 1:]
    if _has_opt(rest, _WRITE_OPTS["git"]):
        return False
    if sub in _GIT_RO:
        return True
    listing = all(a.startswith("-") for a in rest)
    if sub == "branch":
        bad = {"-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy", "-u", "--set-upstream-to",
               "--unset-upstream", "--edit-description", "-f", "--force"}
        return listing and not any(a.split("=", 1)[0] in bad for a in rest)
    if sub == "tag":
        return listing or rest[:1] in (["-l"], ["--list"])
    if sub == "remote":
        return not rest or rest in (["-v"], ["--verbose"]) or rest[:1] in (["show"], ["get-url"])
    if sub == "stash":
        return rest[:1] in (["list"], ["show"])
    if sub == "config":
        return bool(rest) and rest[0] in ("--get", "--get-all", "--list", "-l", "--get-regexp")
    if sub == "reflog":
        return not rest or rest[0] == "show"
    if sub == "worktree":
        return rest[:1] == ["list"]
    return False


def is_read_only(argv: list[str], assignments: list[str] | None = None) -> bool:
    """Whether this one simple command (already unwrapped) only reads."""
    if not argv:
        return True
    if any(a.split("=", 1)[0] not in SAFE_ENV and not a.startswith("LC_") for a in assignments or []):
        return False                   # PAGER=…, GIT_EXTERNAL_DIFF=…, LD_PRELOAD=… can run anything
    name, args = command_name(argv), argv[1:]
    builtin = builtin_read_only(name, args)
    if builtin is not None:
        return builtin and name in _ALWAYS_RO
    if name == "git":
        return _git_read_only(args)
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
    "shred": "destroys file contents", "mv": "moves or overwrites files", "cp": "may overwrite files",
    "dd": "writes raw data", "chmod": "changes permissions", "chown": "changes ownership",
    "chgrp": "changes ownership", "kill": "kills processes", "killall": "kills processes",
    "pkill": "kills processes", "sudo": "runs as root", "doas": "runs as root", "truncate": "truncates files",
    "reboot": "reboots", "shutdown": "shuts down", "halt": "halts", "poweroff": "powers off",
    "mkswap": "formats a device", "fdisk": "partitions a disk", "parted": "partitions a disk",
    "crontab": "changes the crontab", "install": "installs files", "ln": "may replace files",
}
_PKG = {"pip": ("install", "uninstall"), "pip3": ("install", "uninstall"), "npm": ("install", "i", "ci", "add",
        "uninstall", "remove", "rm"), "yarn": ("add", "install", "remove"), "pnpm": ("add", "install", "i",
        "remove"), "apt": ("install", "remove", "purge"), "apt-get": ("install", "remove", "purge"),
        "brew": ("install", "uninstall"), "cargo": ("install",), "gem": ("install",), "go": ("install",),
        "dnf": ("install", "remove"), "yum": ("install", "remove"), "pacman": ("-S", "-R"),
        "poetry": ("add", "remove"), "conda": ("install", "remove"), "uv": ("add", "remove", "pip"),
        "apk": ("add", "del"), "snap": ("install", "remove")}


def _git_destructive(args: list[str]) -> str | None:
    words = [a for a in args if not a.startswith("-")]
    sub = words[0] if words else ""
    if sub == "push":
        return "git push changes the remote"
    if sub == "reset" and "--hard" in args:
        return "git reset --hard discards changes"
    if sub == "clean":
        return "git clean deletes untracked files"
    if sub in ("checkout", "restore") and ("." in words[1:] or "--" in args or "-f" in args):
        return f"git {sub} discards changes"
    if sub == "branch" and any(a in ("-D", "--delete", "-d") for a in args):
        return "git branch -D deletes a branch"
    if sub == "stash" and words[1:2] in (["drop"], ["clear"]):
        return "git stash drop discards changes"
    if sub in ("rebase", "filter-branch", "filter-repo", "update-ref", "gc", "prune"):
        return f"git {sub} rewrites history"
    return None


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
        return _git_destructive(args)
    if name == "find" and "-delete" in args:
        return "find -delete deletes files"
    if name in _PKG and any(a in _PKG[name] for a in args[:3]):
        return f"{name} installs or removes packages"
    if name == "rsync" and any(a.startswith("--delete") for a in args):
        return "rsync --delete deletes files"
    if name in ("docker", "podman") and args[:1] and args[0] in ("rm", "rmi", "prune", "system", "kill"):
        return f"{name} {args[0]} removes containers or data"
    return None
