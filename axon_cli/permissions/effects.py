"""What a shell command does to files that already exist: destroys them, edits them, or neither.

The mode ladder turns on it. ``default`` asks before a destructive call and before an in-place
edit; ``accept-edits`` runs edits; ``auto`` runs both when the sandbox confines them and a
snapshot can undo them. Destructive: deleting, truncating or overwriting an existing file (``rm``,
``unlink``, ``shred``, ``truncate``, ``>`` onto an existing file, ``mv``/``cp``/``ln -f``/
``install``/``tee``/``dd`` onto one), changing modes or owners, ``find -delete``, git's discarding
commands. An edit changes an existing file in place (``sed -i``, formatters, ``>>``). Creating a
new file is neither; nor is running a program whose own file operations are opaque (``make``).

Whether a target exists is a fact passed in (``exists``; None: every target is taken to exist).
Pure otherwise.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from axon_cli.permissions.containment import operands
from axon_cli.permissions.shell_facts import command_name
from axon_cli.permissions.shell_readers import script_words

if TYPE_CHECKING:
    from axon_cli.permissions.shell import CommandAnalysis, Unit

__all__ = ["Effects", "command_effects", "unit_effects", "truncated_targets"]

Exists = Callable[[str], bool]     # a word of the command (relative to the project) names something

ALWAYS = {"rm": "rm deletes files", "rmdir": "rmdir deletes directories", "unlink": "unlink deletes a file",
          "shred": "shred destroys file contents", "truncate": "truncate truncates files",
          "chmod": "chmod changes file modes", "chown": "chown changes ownership",
          "chgrp": "chgrp changes ownership", "srm": "srm deletes files", "wipe": "wipe destroys files"}
FORMATTERS = {"black": None, "isort": None, "autopep8": ("-i", "--in-place"), "yapf": ("-i", "--in-place"),
              "prettier": ("--write", "-w"), "eslint": ("--fix",), "gofmt": ("-w",), "goimports": ("-w",),
              "rustfmt": None, "clang-format": ("-i",), "shfmt": ("-w", "--write"), "stylua": None,
              "autoflake": ("-i", "--in-place"), "dos2unix": None, "unix2dos": None}
_NO_CLOBBER = ("-n", "--no-clobber", "--update=none")
_VALUE_OPTS = {"-t", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"}


@dataclass
class Effects:
    destroys: list[str] = field(default_factory=list)   # why it is destructive, one reason a cause
    edits: list[str] = field(default_factory=list)      # the files it edits in place (words as written)

    def add(self, other: Effects) -> None:
        self.destroys += [r for r in other.destroys if r not in self.destroys]
        self.edits += [e for e in other.edits if e not in self.edits]


def _git(args: list[str]) -> str | None:
    words = [a for a in args if not a.startswith("-")]
    sub = words[0] if words else ""
    if sub == "clean":
        return "git clean deletes untracked files"
    if sub == "reset" and any(a in ("--hard", "--merge", "--keep") for a in args):
        return "git reset --hard discards changes"
    if sub == "checkout" and ("--" in args or "." in words[1:] or any(a in ("-f", "--force") for a in args)):
        return "git checkout discards changes"
    if sub == "restore":
        return "git restore discards changes"
    if sub == "stash" and words[1:2] in (["drop"], ["clear"], ["pop"]):
        return f"git stash {words[1]} discards changes"
    if sub == "branch" and any(a in ("-D", "-d", "--delete", "-M", "-m", "--move", "-f", "--force") for a in args):
        return "git branch deletes or moves a branch"
    if sub in ("rebase", "filter-branch", "filter-repo", "update-ref", "gc", "prune", "reflog") and \
            (sub != "reflog" or words[1:2] in (["expire"], ["delete"])):
        return f"git {sub} rewrites history"
    if sub == "rm":
        return "git rm deletes files"
    return None


def _dest_overwrites(name: str, args: list[str], exists: Exists, is_dir: Exists) -> list[str]:
    """Of ``cp``/``mv``/``ln``/``install`` operands, the destinations that already exist."""
    if any(a in _NO_CLOBBER for a in args) or (name == "ln" and not any(
            a in ("-f", "--force") or (a[:1] == "-" and a[1:2] != "-" and "f" in a) for a in args)):
        return []
    words, target_dir, i = [], None, 0
    while i < len(args):
        a = args[i]
        if a == "-t" and i + 1 < len(args):
            target_dir, i = args[i + 1], i + 2
            continue
        if a.startswith("--target-directory="):
            target_dir = a.split("=", 1)[1]
        elif a == "--":
            words += args[i + 1:]
            break
        elif not a.startswith("-") or a == "-":
            words.append(a)
        elif a in _VALUE_OPTS:
            i += 1
        i += 1
    if target_dir is None:
        if len(words) < 2:
            return []
        target_dir, words = words[-1], words[:-1]
        if not is_dir(target_dir):               # a file (or nothing) as the destination
            return [target_dir] if exists(target_dir) else []
    found = [os.path.join(target_dir, os.path.basename(w.rstrip("/"))) for w in words]
    return [f for f in found if exists(f)]


def unit_effects(unit: Unit, truncated: set[str], exists: Exists | None = None,
                 is_dir: Exists | None = None) -> Effects:
    """The effects of one simple command on existing files; ``truncated``: redirection targets
    written with ``>`` (the rest of ``unit.write_paths`` are appended to). Without ``exists`` every
    target is taken to exist (and, without ``is_dir``, to be a file)."""
    there: Exists = exists or (lambda _p: True)
    folder: Exists = is_dir or (lambda _p: False)
    out = Effects()
    for path in unit.write_paths:
        if there(path):
            (out.destroys.append(f"> overwrites {path}") if path in truncated else out.edits.append(path))
    if not unit.argv:
        return out
    name, args = command_name(unit.argv), unit.argv[1:]
    if name in ALWAYS:
        out.destroys.append(ALWAYS[name])
    elif name == "git":
        why = _git(args)
        out.destroys += [why] if why else []
    elif name == "find" and "-delete" in args:
        out.destroys.append("find -delete deletes files")
    elif name == "rsync" and any(a.startswith(("--delete", "--remove-source")) for a in args):
        out.destroys.append("rsync --delete deletes files")
    elif name in ("cp", "mv", "ln", "install", "rsync"):
        hit = _dest_overwrites(name if name != "rsync" else "cp", args, there, folder)
        out.destroys += [f"{name} overwrites {hit[0]}"] if hit else []
    elif name == "dd":
        hit = [a[3:] for a in args if a.startswith("of=") and there(a[3:])]
        out.destroys += [f"dd overwrites {hit[0]}"] if hit else []
    elif name == "tee":
        files = [a for a in operands(name, args) if a != "-" and there(a)]
        appends = any(a in ("-a", "--append") for a in args)
        (out.edits.extend(files) if appends else out.destroys.extend(f"tee overwrites {f}" for f in files[:1]))
    else:
        out.edits += _in_place(name, args)
    return out


def _formatter_writes(name: str, args: list[str]) -> bool:
    if any(a in ("--check", "--diff", "-c", "--list-different", "-l") for a in args) and name != "sed":
        return False
    if name == "ruff":
        return args[:1] == ["format"] or "--fix" in args
    if name == "terraform":
        return args[:1] == ["fmt"]
    if name not in FORMATTERS:
        return False
    flags = FORMATTERS[name]
    return flags is None or any(a in flags or a.startswith(tuple(f + "=" for f in flags)) for a in args)


def _in_place(name: str, args: list[str]) -> list[str]:
    """Files edited in place: ``sed -i``, ``perl -i``/``ruby -i``, formatters that write named files."""
    short = [a for a in args if a[:1] == "-" and a[1:2] != "-"]
    if name == "sed" and (any("i" in a[1:] for a in short) or any(a.startswith("--in-place") for a in args)):
        skip = script_words(name, args)
        return [a for i, a in enumerate(args) if i not in skip and not a.startswith("-")] or ["(stdin)"]
    if name in ("perl", "ruby") and any("i" in a[1:] for a in short):
        files = [a for a in args if not a.startswith("-")]
        return files if any("e" in a[1:] for a in short) else files[1:]
    if not _formatter_writes(name, args):
        return []
    files = [a for a in args if not a.startswith("-") and a not in ("format", "check", "fmt")]
    return files or ["."]


def truncated_targets(a: CommandAnalysis) -> set[str]:
    """Redirection targets written with ``>`` (truncated), as opposed to ``>>`` (appended to)."""
    return {r[len("> truncates "):] for r in a.redirect_reasons if r.startswith("> truncates ")}


def command_effects(a: CommandAnalysis, exists: Exists | None = None, is_dir: Exists | None = None) -> Effects:
    """The effects of every simple command of ``a``."""
    truncated = truncated_targets(a)
    out = Effects()
    for unit in a.units:
        out.add(unit_effects(unit, truncated, exists, is_dir))
    return out
