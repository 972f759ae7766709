"""When the analysis cannot see what one simple command runs or which files it changes: "opaque".

A program name filled in when it runs (``$x f``, ``$(echo rm) f``, ``{}`` of find/xargs, a glob),
variables that make programs run other code (``BASH_ENV=…``, ``export PAGER=…``), interpreters'
inline code that can touch files (``python -c``, ``perl -e``, awk ``system()``, sed ``w``/``e``),
programs reading their program from stdin (``… | sh``), git with a repository or config the command
names (``-C DIR``, ``--git-dir``, ``-c core.fsmonitor=…``) or with an option that runs a command,
programs that run a command line given in their arguments (``parallel``, ``flock``, ``strace``),
editors, and archives or patches (the files they write are named inside them). An opaque command
is never read-only. Pure.
"""

from __future__ import annotations

import re

from axon_cli.shell.builtin_commands import env_runs_code, names_set
from axon_cli.shell.facts import SHELLS, command_name
from axon_cli.shell.git import git_opaque
from axon_cli.shell.inline import inline_opaque
from axon_cli.shell.words import dynamic

__all__ = ["opaque_reason", "assignment_opaque"]

_RUNNERS = frozenset({
    "parallel", "flock", "strace", "ltrace", "valgrind", "taskset", "chrt", "prlimit", "unshare", "nsenter",
    "firejail", "xvfb-run", "script", "su", "runuser", "sg", "chroot", "entr", "numactl", "fakeroot", "proot",
    "bwrap", "systemd-run", "dbus-run-session", "ssh-agent", "expect", "tmux", "screen", "at", "batch",
    "watchexec", "nodemon", "catchsegv", "gdb", "lldb", "busybox", "toybox",
})
_EDITORS = frozenset({"vi", "vim", "nvim", "view", "ex", "ed", "emacs", "nano", "joe", "mcedit", "kak", "hx"})
# options that make a program run another program (named in the option's value, or a shell command)
_RUNS_OPTION = {"sort": ("--compress-program",), "rg": ("--pre", "--hostname-bin"), "fd": ("-x", "-X", "--exec",
                "--exec-batch"), "man": ("-P", "--pager", "-H", "--html", "--browser"), "rsync": ("-e", "--rsh",
                "--rsync-path"), "zip": ("-TT", "--unzip-command"), "ssh": ("-o",), "scp": ("-o", "-S")}
_INTERPRETERS = frozenset({"python", "python3", "perl", "ruby", "node", "nodejs", "php", "lua", "bun", "deno"})
def assignment_opaque(words: list[str]) -> str | None:
    """Why setting these variables (``NAME=value`` words or names) hides what programs run."""
    name = next((n for n in map(env_runs_code, words) if n), None)
    return f"sets {name}, which can make programs run other code" if name else None


def _name_opaque(name: str) -> str | None:
    if dynamic(name):
        return "the program name comes from a variable or a command substitution"
    if "{}" in name:
        return "the program name is filled in from find or xargs input"
    if "*" in name or "?" in name or re.search(r"\[.*\]", name):
        return "the program name is a glob pattern"
    return None


def _reads_program_from_stdin(name: str, args: list[str]) -> bool:
    if name not in SHELLS and name not in _INTERPRETERS:
        return False
    if any(a in ("--version", "-V", "--help", "-h", "-v") for a in args[:1]):
        return False
    operands = [a for a in args if not a.startswith("-") or a == "-"]
    return not operands or operands[0] == "-" or (name in SHELLS and any(a == "-s" for a in args))


def _xargs_opaque(args: list[str]) -> str | None:
    replace, i = None, 0
    while i < len(args) and args[i].startswith("-"):
        a = args[i]
        if a in ("-I", "--replace") and i + 1 < len(args):
            replace, i = args[i + 1], i + 2
            continue
        if a.startswith("-I") and len(a) > 2:
            replace = a[2:]
        elif a in ("-i", "--replace") or a.startswith(("--replace=", "-i")):
            replace = a.split("=", 1)[1] if "=" in a else (a[2:] or "{}")
        i += 2 if a in ("-n", "-P", "-d", "-L", "-s", "-E", "-a", "--max-args", "--max-procs", "--delimiter",
                        "--max-lines", "--max-chars", "--arg-file", "--eof", "--process-slot-var") else 1
    program = args[i] if i < len(args) else "echo"
    if dynamic(program) or (replace and replace in program):
        return "xargs runs a program named by its input or a variable"
    return None


def _archive_opaque(name: str, args: list[str]) -> str | None:
    first = args[0] if args else ""
    if name == "tar":
        if any(a.startswith(("--to-command", "--use-compress-program", "--checkpoint-action", "--info-script",
                             "--new-volume-script", "--rsh-command")) or a in ("-I", "-F") for a in args):
            return "tar runs a command given in its options"
        extracting = "x" in first.lstrip("-") and not first.startswith("--") or \
            any(a in ("-x", "--extract", "--get") or (a[:1] == "-" and a[1:2] != "-" and "x" in a) for a in args)
        return "tar writes the files the archive names" if extracting else None
    if name == "unzip" and not any(a in ("-l", "-t", "-p", "-Z", "-v", "-z") for a in args):
        return "unzip writes the files the archive names"
    if name in ("7z", "7za", "7zr") and first in ("x", "e"):
        return f"{name} writes the files the archive names"
    if name == "cpio" and any(a[:1] == "-" and "i" in a for a in args):
        return "cpio writes the files the archive names"
    if name == "patch":
        return "patch changes the files the patch names"
    return None


def opaque_reason(argv: list[str], assignments: list[str] | None = None) -> str | None:
    """Why the analysis cannot see what this simple command (already unwrapped) runs or changes;
    None when it can."""
    why = assignment_opaque(assignments or [])
    if why or not argv:
        return why
    name, args = command_name(argv), argv[1:]
    why = _name_opaque(argv[0]) or assignment_opaque(names_set(name, args))
    if why:
        return why
    if name == "git":
        return git_opaque(args)
    if name == "xargs":
        return _xargs_opaque(args)
    option = next((o for o in _RUNS_OPTION.get(name, ()) for a in args
                   if a == o or a.startswith(o + "=") or (len(o) == 2 and a.startswith(o))), None)
    if option:
        return f"{name} {option} runs a program"
    if name in ("less", "more") and any(a.startswith("+") for a in args):
        return f"{name} +COMMAND can run a shell command"
    if name in _RUNNERS:
        return f"{name} runs a command given in its arguments"
    if name in _EDITORS:
        return f"{name} can run commands and write any file"
    if _runs_generated_code(name, args):
        return f"{name} runs code that another command produces"
    if name in ("source", "."):
        return None
    if _reads_program_from_stdin(name, args):
        return f"{name} reads its program from standard input"
    return inline_opaque(name, args) or _archive_opaque(name, args)


_CODE_RUNNERS = frozenset({"source", ".", "sh", "bash", "zsh", "dash", "ksh", "fish", "ash", "mksh", "python",
                           "python3", "perl", "ruby", "node", "php", "awk", "gawk", "make"})


def _runs_generated_code(name: str, args: list[str]) -> bool:
    """``source <(…)``, ``bash <(curl …)``, ``python3 /dev/stdin``: the code read comes from a
    command's output or a stream, which the analysis never sees."""
    if name not in _CODE_RUNNERS and not name.startswith("python3."):
        return False
    return any(a.startswith(("<(", "/dev/fd/", "/proc/self/fd/")) or a == "/dev/stdin" for a in args
               if name not in ("awk", "gawk", "make") or a.startswith("<("))
