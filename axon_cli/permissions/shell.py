"""Shell command analysis: every simple command in a bash string, and what the whole does.

``analyze`` parses with bashlex, falls back to the small lexer in ``shell_lex`` when bashlex fails,
and recurses into subshells, ``$(…)``, backticks, process substitution, heredoc bodies, ``bash -c``
/ ``eval`` strings, ``xargs`` / ``find -exec`` targets and wrappers (``env``, ``nice``,
``timeout 5``, ``sudo`` …). A command is read-only only if it parsed, every simple command is on
the read-only allowlist and nothing is redirected into a file. It never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from axon_cli.permissions.shell_facts import SHELLS, command_name, destructive_reason, is_read_only, unwrap
from axon_cli.permissions.shell_lex import RawCommand, ShellSyntaxError, parse_flat, scan_substitutions
from axon_cli.permissions.shell_readers import NO_FILE_ARGS, script_words

__all__ = ["CommandAnalysis", "Unit", "analyze"]

MAX_DEPTH = 8
MAX_LENGTH = 100_000
HARMLESS_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"}
OUTPUT_OPS = {">", ">>", ">|", "&>", "&>>", "<>"}
DOWNLOADERS = {"curl", "wget", "fetch"}
INTERPRETERS = SHELLS | {"python", "python3", "perl", "ruby", "node", "php"}


@dataclass
class Unit:
    """One simple command as rules see it, with the facts about it alone."""

    argv: list[str]
    read_only: bool
    destructive: str | None = None
    paths: list[str] = field(default_factory=list)        # argument words that may be paths
    write_paths: list[str] = field(default_factory=list)  # files it redirects output into


@dataclass
class CommandAnalysis:
    command: str
    parsed: bool = True
    simple_commands: list[list[str]] = field(default_factory=list)
    redirects_to_file: bool = False
    read_only: bool = True
    destructive: bool = False
    destructive_reasons: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    error: str = ""
    redirect_reasons: list[str] = field(default_factory=list)


def analyze(command: str) -> CommandAnalysis:
    """Analyse ``command``; unparseable input gives ``parsed=False`` (never an exception)."""
    result = CommandAnalysis(command)
    try:
        if len(command) > MAX_LENGTH:
            raise ShellSyntaxError("command too long to analyse")
        _analyze_into(command, result, 0)
    except (ShellSyntaxError, RecursionError) as e:
        result.parsed, result.error = False, str(e) or "unparseable"
    except Exception as e:  # a parser bug must read as "unparseable", never crash the policy
        result.parsed, result.error = False, f"unparseable ({type(e).__name__})"
    _summarise(result)
    return result


def _summarise(result: CommandAnalysis) -> None:
    result.simple_commands = [u.argv for u in result.units if u.argv]
    result.redirects_to_file = any(u.write_paths for u in result.units)
    reasons = [u.destructive for u in result.units if u.destructive] + result.redirect_reasons
    downloads = any(command_name(u.argv) in DOWNLOADERS for u in result.units)
    if downloads and any(command_name(u.argv) in INTERPRETERS and len(u.argv) == 1 for u in result.units):
        reasons.append("pipes a download into a shell")
    result.destructive_reasons = list(dict.fromkeys(reasons))
    result.destructive = bool(reasons)
    result.read_only = result.parsed and all(u.read_only and not u.write_paths for u in result.units)
    seen: dict[str, None] = {}
    for u in result.units:
        seen.update(dict.fromkeys(u.paths + u.write_paths))
    result.paths = list(seen)


def _analyze_into(text: str, result: CommandAnalysis, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise ShellSyntaxError("commands nested too deeply")
    if not text.strip():
        return
    commands, nested = _parse(text)
    for raw in commands:
        _add_command(raw, result, depth)
    for source in nested:
        _analyze_into(source, result, depth + 1)


def _parse(text: str) -> tuple[list[RawCommand], list[str]]:
    if "$'" not in text and '$"' not in text:   # bashlex mangles ANSI-C quoting
        try:
            return _from_bashlex(text)
        except (ShellSyntaxError, RecursionError):
            raise
        except Exception:
            pass
    return parse_flat(text)


def _add_command(raw: RawCommand, result: CommandAnalysis, depth: int) -> None:
    argv = list(raw.words)
    if argv and argv[0].startswith("/") and command_name(argv) != argv[0]:
        argv[0] = command_name(argv)
    writes, reads = _redirect_paths(raw.redirects, result)
    if not argv:
        if raw.assignments or writes or reads:
            result.units.append(Unit([], True, None, reads, writes))
        return
    _add_argv(argv, raw.assignments, result, depth, writes, reads)


def _add_argv(argv: list[str], assignments: list[str], result: CommandAnalysis, depth: int,
              writes: list[str] | None = None, reads: list[str] | None = None) -> None:
    if depth > MAX_DEPTH:
        raise ShellSyntaxError("commands nested too deeply")
    wrapped = unwrap(argv)
    writes, reads = writes or [], reads or []
    if wrapped is None or wrapped.keep_outer:
        ro = is_read_only(argv, assignments) if wrapped is None or wrapped.outer_read_only is None \
            else wrapped.outer_read_only and is_read_only([], assignments)
        result.units.append(Unit(argv, ro, destructive_reason(argv), _path_words(argv) + reads, writes))
    elif writes or reads or assignments:
        ro = wrapped.outer_read_only is not False and is_read_only([], assignments)
        result.units.append(Unit([], ro, None, reads, writes))
    for inner in wrapped.inner_argv if wrapped else []:
        if inner:
            _add_argv([command_name(inner), *inner[1:]], [], result, depth + 1)
    for source in wrapped.inner_source if wrapped else []:
        _analyze_into(source, result, depth + 1)


def _redirect_paths(redirects: list[tuple[str, str]], result: CommandAnalysis) -> tuple[list[str], list[str]]:
    writes, reads = [], []
    for op, target in redirects:
        if op in (">&", "<&") and (target.isdigit() or target == "-"):
            continue
        if op in ("<<", "<<-", "<<<"):
            continue
        if op in OUTPUT_OPS or op == ">&":
            if target not in HARMLESS_TARGETS:
                writes.append(target)
                if op in (">", ">|", "&>", ">&"):
                    result.redirect_reasons.append(f"> truncates {target}")
        else:
            reads.append(target)
    return writes, reads


_PATHISH = re.compile(r"[/~]|^\.|\.[A-Za-z0-9]{1,8}$|^id_|credentials|netrc|secret", re.I)


def _path_words(argv: list[str]) -> list[str]:
    """Argument words that may name files (options' ``=value`` parts included)."""
    name, words = command_name(argv), list[str]()
    if name in NO_FILE_ARGS:           # basename/dirname/realpath read no file
        return words
    pattern_pending = name in ("grep", "egrep", "fgrep", "rg", "ag", "zgrep") and not any(
        a in ("-e", "-f", "--regexp", "--file") or a.startswith(("-e", "--regexp=")) for a in argv[1:])
    scripts = script_words(name, argv[1:])
    for index, arg in enumerate(argv[1:]):
        if index in scripts:
            continue
        if arg.startswith("-"):
            arg = arg.split("=", 1)[1] if "=" in arg else ""
        elif pattern_pending:
            pattern_pending = False
            continue
        if arg and (_PATHISH.search(arg) or name in ("cat", "less", "more", "source", ".")):
            words.append(arg)
        if name == "git" and ":" in arg and "://" not in arg and not arg.startswith("-"):
            words.append(arg.split(":", 1)[1] or ".")    # git show REV:PATH reads PATH
    return words


# -- bashlex ---------------------------------------------------------------------------------------
def _from_bashlex(text: str) -> tuple[list[RawCommand], list[str]]:
    import bashlex

    commands: list[RawCommand] = []
    nested: list[str] = []
    for tree in bashlex.parse(text):
        _walk(tree, text, commands, nested)
    return commands, nested


def _walk(node: Any, text: str, out: list[RawCommand], nested: list[str], piped: bool = False) -> None:
    kind = node.kind
    if kind == "command":
        out.append(_command(node, text, out, nested, piped))
    elif kind == "pipeline":
        after_pipe = False
        for part in node.parts:
            if part.kind == "pipe":
                after_pipe = True
            else:
                _walk(part, text, out, nested, after_pipe)
    elif kind in ("commandsubstitution", "processsubstitution"):
        _walk(node.command, text, out, nested)
    elif kind == "parameter":
        value = getattr(node, "value", "") or ""
        if "$" in value or "`" in value:
            nested.extend(scan_substitutions(value))
    else:
        for part in getattr(node, "parts", None) or getattr(node, "list", None) or []:
            _walk(part, text, out, nested)
        redirects = getattr(node, "redirects", None) or []
        if redirects:                 # `{ …; } > f`, `while …; done < f`: the compound's own redirections
            holder = RawCommand()
            for part in redirects:
                _redirect(part, text, holder, out, nested)
            out.append(holder)


def _command(node: Any, text: str, out: list[RawCommand], nested: list[str], piped: bool) -> RawCommand:
    cmd = RawCommand(piped=piped)
    for part in node.parts:
        if part.kind == "word":
            cmd.words.append(part.word)
            _walk_word(part, text, out, nested)
        elif part.kind == "assignment":
            cmd.assignments.append(part.word)
            _walk_word(part, text, out, nested)
        elif part.kind == "redirect":
            _redirect(part, text, cmd, out, nested)
        else:
            _walk(part, text, out, nested)
    return cmd


def _walk_word(word: Any, text: str, out: list[RawCommand], nested: list[str]) -> None:
    for part in getattr(word, "parts", None) or []:
        _walk(part, text, out, nested)


def _redirect(part: Any, text: str, cmd: RawCommand, out: list[RawCommand], nested: list[str]) -> None:
    target = part.output
    if part.type in ("<<", "<<-"):
        heredoc = getattr(part, "heredoc", None)
        delim_src = text[target.pos[0]:target.pos[1]] if hasattr(target, "pos") else ""
        if heredoc is not None and not any(q in delim_src for q in "'\"\\"):
            nested.extend(scan_substitutions(heredoc.value))
        return
    if isinstance(target, int):
        cmd.redirects.append((part.type, str(target)))
        return
    _walk_word(target, text, out, nested)
    cmd.redirects.append((part.type, target.word))
