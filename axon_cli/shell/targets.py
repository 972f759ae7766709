"""Which files one simple command deletes, overwrites or edits in place, as the words that name them.

- ``deletes``: removed whatever they hold (``rm``, ``unlink``, ``shred``, ``find DIR -delete``).
- ``overwrites``: replaced *if they already exist* (``cp a b``, ``mv a b``, ``ln -f``, ``install``,
  ``tee f``, ``dd of=f``, ``> f``). A word is a file replaced when it exists and is not a directory;
  for a destination that may be a directory, ``DIR/SOURCE_NAME`` is listed as well. A word ending in
  ``/`` is a directory whose files a recursive copy may replace: any existing thing there counts.
- ``edits``: existing files changed in place (``sed -i``, ``perl -i``, formatters with their write
  option, ``tee -a``, ``>>``, ``dd conv=notrunc``).
- ``moves``: paths a move takes away (``mv a b``, ``git mv a b``: ``a`` is gone, its content kept at
  ``b``): a change to an existing path, though no content is lost. Programs' own output options and the
  inputs they replace are in ``outputs`` and ``archives`` (``gzip f``, ``sort -o f``, ``tar -cf f``).
- ``unseen``: a reason when the command changes files the words do not show (no operands: they come
  from stdin; ``$x``, ``$(…)``, ``{}``: filled in when it runs).

Pure; the caller checks existence. ``file_changes`` supersedes ``containment.file_targets``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from axon_cli.shell.archives import archive_changes
from axon_cli.shell.facts import command_name
from axon_cli.shell.git import git_file_changes
from axon_cli.shell.outputs import program_changes
from axon_cli.shell.readers import script_words
from axon_cli.shell.words import dynamic

__all__ = ["FileChanges", "file_changes", "operands"]

_OPT_VALUES = {"truncate": {"-s", "--size", "-r", "--reference"}, "cp": {"-t", "-S", "--suffix"},
               "mv": {"-t", "-S", "--suffix"}, "ln": {"-t", "-S", "--suffix"},
               "install": {"-t", "-m", "-o", "-g", "-S", "--mode", "--owner", "--group"},
               "shred": {"-n", "--iterations", "-s", "--size", "--random-source"},
               "chmod": {"--reference"}, "chown": {"--reference", "--from"}, "chgrp": {"--reference"},
               "rsync": {"-e", "--rsh", "--exclude", "--include", "--filter", "-f", "--rsync-path", "--log-file"},
               "touch": {"-r", "-d", "-t", "--reference", "--date"}, "mkdir": {"-m", "--mode"},
               "mkfifo": {"-m", "--mode"}}
_REMOVES = frozenset({"rm", "rmdir", "unlink", "shred", "truncate"})
_COPIES = frozenset({"cp", "mv", "install", "ln"})
# formatter -> (the option that makes it write files, or None: it writes unless an option says not,
#               options that make it only check, subcommand words to skip, default operand)
_FORMATTERS: dict[str, tuple[str | None, tuple[str, ...], tuple[str, ...], str | None]] = {
    "black": (None, ("--check", "--diff"), (), None), "isort": (None, ("--check-only", "--check", "--diff", "-c"), (), None),
    "autopep8": ("-i", (), (), None), "prettier": ("--write", (), (), None),
    "eslint": ("--fix", (), (), "."), "gofmt": ("-w", (), (), None), "goimports": ("-w", (), (), None),
    "rustfmt": (None, ("--check",), (), None), "clang-format": ("-i", (), (), None), "shfmt": ("-w", (), (), None),
    "yapf": ("-i", (), (), None),
}


@dataclass
class FileChanges:
    deletes: list[str] = field(default_factory=list)
    overwrites: list[str] = field(default_factory=list)
    edits: list[str] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    unseen: str | None = None


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


def _short(args: list[str], letter: str, long: str | None = None) -> bool:
    return any((a[:1] == "-" and a[1:2] != "-" and letter in a[1:]) or (long is not None and a == long) for a in args)


def _target_dir(args: list[str]) -> str | None:
    for i, a in enumerate(args):
        if a in ("-t", "--target-directory") and i + 1 < len(args):
            return args[i + 1]
        if a.startswith("--target-directory="):
            return a.split("=", 1)[1]
        if a.startswith("-t") and len(a) > 2:
            return a[2:]
    return None


def _base(word: str) -> str:
    return word.rstrip("/").rsplit("/", 1)[-1] or word


def _copy_targets(name: str, args: list[str]) -> list[str]:
    """What ``cp``/``mv``/``install``/``ln`` replace if it exists."""
    if name == "ln" and not _short(args, "f", "--force") and "--remove-destination" not in args:
        return []
    if name in ("cp", "mv") and (_short(args, "n", "--no-clobber") or "--update=none" in args):
        return []
    if name == "install" and _short(args, "d", "--directory"):
        return []
    recursive = name == "cp" and (_short(args, "r") or _short(args, "R") or _short(args, "a")
                                  or "--recursive" in args or "--archive" in args)
    mark = "/" if recursive else ""
    words = operands(name, args)
    directory = _target_dir(args)
    if directory is not None:
        return [f"{directory.rstrip('/')}/{_base(s)}{mark}" for s in words]
    if len(words) < 2 and not (name == "ln" and words):
        return []
    dest, sources = (words[-1], words[:-1]) if len(words) >= 2 else (".", words)
    no_dir = _short(args, "T", "--no-target-directory")
    out = [] if dest.endswith("/") else [dest + mark if recursive and no_dir else dest]
    if not no_dir:
        out += [f"{dest.rstrip('/')}/{_base(s)}{mark}" for s in sources]
    return out


def _formatter(name: str, args: list[str]) -> list[str] | None:
    if name == "ruff":
        sub = args[0] if args else ""
        if sub == "format" and not any(a in ("--check", "--diff") for a in args):
            return [a for a in args[1:] if not a.startswith("-")] or ["."]
        if sub == "check" and any(a in ("--fix", "--unsafe-fixes") for a in args) and "--no-fix" not in args:
            return [a for a in args[1:] if not a.startswith("-")] or ["."]
        return None
    if name == "terraform":
        if args[:1] != ["fmt"] or any(a in ("-check", "-write=false", "-diff") for a in args):
            return None
        return [a for a in args[1:] if not a.startswith("-")] or ["."]
    write, check, _subs, default = _FORMATTERS[name]
    writes = any(a == write or a.startswith(f"{write}=") for a in args) or (write == "-i" and _short(args, "i")) \
        if write is not None else not any(a in check for a in args)
    if not writes:
        return None
    files = [a for a in args if not a.startswith("-")]
    return files or ([default] if default else [])


def file_changes(argv: list[str]) -> FileChanges:
    """What this simple command (already unwrapped) deletes, overwrites and edits."""
    name, args = command_name(argv), argv[1:]
    out = FileChanges()
    if name in _REMOVES:                   # truncate destroys the contents: counted as deleting them
        out.deletes = operands(name, args)
    elif name in _COPIES:
        out.overwrites = _copy_targets(name, args)
        out.moves = _moved(args) if name == "mv" else []
    elif name == "tee":
        files = [a for a in operands(name, args) if a not in ("/dev/null", "/dev/stdout", "/dev/stderr")]
        if _short(args, "a", "--append"):
            out.edits = files
        else:
            out.overwrites = files
    elif name == "dd":
        files = [a[3:] for a in args if a.startswith("of=")]
        notrunc = any(a.startswith("conv=") and "notrunc" in a for a in args)
        out.edits, out.overwrites = (files, []) if notrunc else ([], files)
    elif name == "rsync":
        words = operands(name, args)
        out.overwrites = [words[-1].rstrip("/") + "/"] if len(words) >= 2 else []
        if any(a.startswith(("--delete", "--remove-source-files")) for a in args):
            out.deletes = words[-1:] + (words[:-1] if "--remove-source-files" in args else [])
    elif name in ("chmod", "chown", "chgrp"):
        ops = operands(name, args)
        out.edits = ops if any(a.startswith("--reference") for a in args) else ops[1:]
    elif name == "find" and "-delete" in args:
        first = next((i for i, a in enumerate(args) if a[:1] in "-(!"), len(args))
        out.deletes = args[:first] or ["."]
    elif name == "sed" and (_short(args, "i") or any(a.startswith("--in-place") for a in args)):
        skip = script_words(name, args)
        out.edits = [a for i, a in enumerate(args) if i not in skip and not a.startswith("-")]
    elif name in ("perl", "ruby") and any(a[:1] == "-" and a[1:2] != "-" and "i" in a[1:] for a in args):
        out.edits = _inline_operands(args)
    elif name in _FORMATTERS or name in ("ruff", "terraform"):
        out.edits = _formatter(name, args) or []
    elif name == "git":
        out.deletes, out.moves, out.overwrites = git_file_changes(args)
        return _check_seen(name, out, quiet=True)
    else:
        found = archive_changes(name, args) or program_changes(name, args)
        if found is None:
            return out
        out.deletes, out.overwrites, out.edits = found.deletes, found.overwrites, found.edits
        return _check_seen(name, out, quiet=True)
    return _check_seen(name, out)


def _moved(args: list[str]) -> list[str]:
    """The sources of ``mv`` (gone from their paths once it runs)."""
    words = operands("mv", args)
    return words if _target_dir(args) is not None else words[:-1]


def _inline_operands(args: list[str]) -> list[str]:
    """The file operands of ``perl -pi -e CODE FILE…`` (the code after -e/-E is not a file)."""
    out: list[str] = []
    skip = False
    for a in args:
        if skip:
            skip = False
        elif a.startswith("-"):
            skip = a[-1] in "eEIM" or a in ("-e", "-E")
        else:
            out.append(a)
    return out


def _check_seen(name: str, out: FileChanges, quiet: bool = False) -> FileChanges:
    """``out`` with ``unseen`` set when the words do not show the files changed; ``quiet``: a program
    that changes nothing when it names no file (``gzip`` on stdin, ``sort`` to stdout)."""
    words = out.deletes + out.overwrites + out.edits + out.moves
    if not words and not quiet and name not in ("ln", "cp", "mv", "install", "chmod", "chown", "chgrp", "rsync", "tee", "dd",
                                  *_FORMATTERS, "ruff", "terraform"):
        out.unseen = f"{name} reads the files it changes from its input"
    elif any("{}" in w for w in words):
        out.unseen = f"the files {name} changes are filled in by find or xargs"
    elif any(dynamic(_home_relative(w)) for w in words):
        out.unseen = f"the files {name} changes come from an expansion"
    return out


def _home_relative(word: str) -> str:
    """``word`` without a leading ``$HOME``/``${HOME}`` (which the path resolver expands)."""
    for var in ("${HOME}", "$HOME"):
        if word == var or word.startswith(var + "/"):
            return word[len(var):]
    return word
