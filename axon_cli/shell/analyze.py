"""Shell command analysis: every simple command in a bash string, and what the whole does.

``analyze`` parses with bashlex (``bashlex_front``), falls back to the small lexer in ``lex``
when bashlex fails, and recurses into subshells, ``$(…)``, backticks, process substitution, heredoc
bodies, ``bash -c`` / ``eval`` / ``trap`` strings, ``xargs`` / ``find -exec`` targets and wrappers
(``env``, ``nice``, ``timeout 5``, ``sudo`` …). Words are brace-expanded as bash would.

Per simple command (``Unit``): read-only or not (an allowlist, ``facts``); why it is always
destructive; the files it deletes, overwrites if they exist, and edits in place (``targets``);
and why it is opaque — the analysis cannot see what it runs or which files it changes
(``opaque``). A command is read-only only if it parsed, no unit is opaque, every unit is on the
allowlist and nothing is redirected into a file. It never raises.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from axon_cli.shell.facts import SHELLS, command_name, destructive_reason, is_read_only, unwrap
from axon_cli.shell.lex import RawCommand, ShellSyntaxError, parse_flat
from axon_cli.shell.opaque import assignment_opaque, opaque_reason
from axon_cli.shell.readers import NO_FILE_ARGS, script_words
from axon_cli.shell.targets import file_changes
from axon_cli.shell.words import dynamic, expand_argv

__all__ = ["CommandAnalysis", "Unit", "analyze"]

MAX_DEPTH = 8
MAX_LENGTH = 100_000
HARMLESS_TARGETS = {"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"}
OVERWRITE_OPS = {">", ">|", "&>", ">&"}
APPEND_OPS = {">>", "&>>", "<>"}
DOWNLOADERS = {"curl", "wget", "fetch"}
INTERPRETERS = SHELLS | {"python", "python3", "perl", "ruby", "node", "php"}


@dataclass
class Unit:
    """One simple command as rules see it, with the facts about it alone.

    ``destructive``: why it always destroys something (``rm``, ``git reset --hard`` …). ``deletes``,
    ``overwrites`` and ``edits`` name the files it removes, replaces if they exist (a word ending in
    ``/``: a directory whose files may be replaced), and changes in place (see ``targets``).
    ``opaque``: why the analysis cannot see what it runs or which files it changes (see
    ``opaque``); an opaque unit is never read-only."""

    argv: list[str]
    read_only: bool
    destructive: str | None = None
    paths: list[str] = field(default_factory=list)        # argument words that may be paths
    write_paths: list[str] = field(default_factory=list)  # files it redirects output into
    opaque: str | None = None
    deletes: list[str] = field(default_factory=list)
    overwrites: list[str] = field(default_factory=list)
    edits: list[str] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)        # paths a move takes away (content kept elsewhere)


@dataclass
class CommandAnalysis:
    command: str
    parsed: bool = True
    simple_commands: list[list[str]] = field(default_factory=list)
    redirects_to_file: bool = False
    read_only: bool = True
    destructive: bool = False          # a unit always destroys something (not: overwrites if it exists)
    destructive_reasons: list[str] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)
    units: list[Unit] = field(default_factory=list)
    error: str = ""
    redirect_reasons: list[str] = field(default_factory=list)   # "> truncates f": its target is in overwrites
    opaque_reasons: list[str] = field(default_factory=list)


def analyze(command: str) -> CommandAnalysis:
    """Analyse ``command``; unparseable input gives ``parsed=False`` (never an exception)."""
    result = CommandAnalysis(command)
    try:
        if len(command) > MAX_LENGTH:
            raise ShellSyntaxError("command too long to analyse")
        _analyze_into(command, result, 0)
        _whole_command_facts(result)
    except (ShellSyntaxError, RecursionError) as e:
        result.parsed, result.error = False, str(e) or "unparseable"
    except Exception as e:  # a parser bug must read as "unparseable", never crash the policy
        result.parsed, result.error = False, f"unparseable ({type(e).__name__})"
    _summarise(result)
    return result


def _summarise(result: CommandAnalysis) -> None:
    result.simple_commands = [u.argv for u in result.units if u.argv]
    result.redirects_to_file = any(u.write_paths for u in result.units)
    reasons = [u.destructive for u in result.units if u.destructive]
    downloads = any(command_name(u.argv) in DOWNLOADERS for u in result.units)
    if downloads and any(command_name(u.argv) in INTERPRETERS and len(u.argv) == 1 for u in result.units):
        reasons.append("pipes a download into a shell")
    result.destructive_reasons = list(dict.fromkeys(reasons))
    result.destructive = bool(reasons)
    result.opaque_reasons = list(dict.fromkeys(u.opaque for u in result.units if u.opaque))
    for u in result.units:
        u.read_only = u.read_only and u.opaque is None
    result.read_only = result.parsed and all(u.read_only and not u.write_paths for u in result.units)
    seen: dict[str, None] = {}
    for u in result.units:
        seen.update(dict.fromkeys(u.paths + u.write_paths))
    result.paths = list(seen)


def _whole_command_facts(result: CommandAnalysis) -> None:
    """Facts one simple command cannot show alone: aliases defined or switched on earlier in the
    command, and git run in a directory the command changed into (that repository's own config)."""
    aliases: set[str] = set()
    expand_all = changed_dir = False
    for u in result.units:
        name = command_name(u.argv)
        if u.opaque is None and (expand_all or (name and name in aliases)):
            u.opaque = "aliases are expanded: the name may run another command"
        if u.opaque is None and name == "git" and changed_dir:
            u.opaque = "git runs in a directory the command changes into, whose repository config can run programs"
        if name == "alias":
            for word in u.argv[1:]:
                alias = word.split("=", 1)[0]
                aliases.add(alias)
                expand_all = expand_all or dynamic(alias)
        elif name == "shopt" and "expand_aliases" in u.argv and "-u" not in u.argv:
            expand_all = True
        elif name in ("cd", "pushd", "popd") and len(u.argv) > 1 or name == "popd":
            changed_dir = True


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
            from axon_cli.shell.bashlex_front import from_bashlex

            return from_bashlex(text)
        except (ShellSyntaxError, RecursionError):
            raise
        except Exception:
            pass
    return parse_flat(text)


@dataclass
class _Redirects:
    writes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    overwrites: list[str] = field(default_factory=list)
    edits: list[str] = field(default_factory=list)
    opaque: str | None = None


def _add_command(raw: RawCommand, result: CommandAnalysis, depth: int) -> None:
    argv = expand_argv(list(raw.words))
    if argv and argv[0].startswith("/") and command_name(argv) != argv[0]:
        argv[0] = command_name(argv)
    redirects = _redirect_paths(raw.redirects, result)
    if not argv:
        if raw.assignments or redirects.writes or redirects.reads:
            unit = Unit([], is_read_only([], raw.assignments), None, redirects.reads, redirects.writes,
                        assignment_opaque(raw.assignments) or redirects.opaque)
            unit.overwrites, unit.edits = redirects.overwrites, redirects.edits
            result.units.append(unit)
        return
    _add_argv(argv, raw.assignments, result, depth, redirects, set(raw.expanded))


def _add_argv(argv: list[str], assignments: list[str], result: CommandAnalysis, depth: int,
              redirects: _Redirects | None = None, expanded: set[str] | None = None) -> None:
    if depth > MAX_DEPTH:
        raise ShellSyntaxError("commands nested too deeply")
    wrapped = unwrap(argv)
    r = redirects or _Redirects()
    if wrapped is None or wrapped.keep_outer:
        ro = is_read_only(argv, assignments) if wrapped is None or wrapped.outer_read_only is None \
            else wrapped.outer_read_only and is_read_only([], assignments)
        _append(result, argv, assignments, ro, r)
    elif r.writes or r.reads or assignments or r.opaque:
        ro = wrapped.outer_read_only is not False and is_read_only([], assignments)
        _append(result, [], assignments, ro, r)
    if wrapped is None:
        return
    if wrapped.inner_source and any(w in (expanded or ()) for w in argv[1:]):
        _append(result, [], [], False, _Redirects(opaque=f"{command_name(argv)} runs text built from expansions"))
    for inner in wrapped.inner_argv:
        if inner:
            _add_argv(expand_argv([command_name(inner), *inner[1:]]), wrapped.inner_assignments, result, depth + 1,
                      expanded=expanded)
    for source in wrapped.inner_source:
        _analyze_into(source, result, depth + 1)


def _append(result: CommandAnalysis, argv: list[str], assignments: list[str], ro: bool, r: _Redirects) -> None:
    changes = file_changes(argv) if argv else None
    opaque = opaque_reason(argv, assignments) or r.opaque or (changes.unseen if changes else None)
    if changes is not None and (changes.deletes or changes.overwrites or changes.edits or changes.moves):
        ro = False                     # a program's own output option or the inputs it replaces
    unit = Unit(argv, ro, destructive_reason(argv), _path_words(argv) + r.reads if argv else list(r.reads),
                list(r.writes), opaque)
    if changes is not None:
        unit.deletes, unit.overwrites, unit.edits = changes.deletes, changes.overwrites, changes.edits
        unit.moves = changes.moves
    unit.overwrites = unit.overwrites + r.overwrites
    unit.edits = unit.edits + r.edits
    result.units.append(unit)


def _redirect_paths(redirects: list[tuple[str, str]], result: CommandAnalysis) -> _Redirects:
    out = _Redirects()
    for op, target in redirects:
        if op in (">&", "<&") and (target.isdigit() or target == "-"):
            continue
        if op in ("<<", "<<-", "<<<"):
            continue
        if op in OVERWRITE_OPS or op in APPEND_OPS:
            if target in HARMLESS_TARGETS:
                continue
            out.writes.append(target)
            if dynamic(target):
                out.opaque = "the file it writes comes from an expansion"
            if op in OVERWRITE_OPS:
                out.overwrites.append(target)
                result.redirect_reasons.append(f"> truncates {target}")
            else:
                out.edits.append(target)
        else:
            out.reads.append(target)
    return out


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
