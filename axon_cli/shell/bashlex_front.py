"""The bashlex front end of the shell analysis: simple commands, their redirections, the words the
outer shell expands, and the nested command texts (``$(…)``, backticks, heredoc bodies) of a parse tree.
``lex.parse_flat`` is the fallback when bashlex cannot parse a command.
"""

from __future__ import annotations

from typing import Any

from axon_cli.shell.lex import RawCommand, scan_substitutions

__all__ = ["from_bashlex"]

_EXPANSIONS = ("parameter", "commandsubstitution", "processsubstitution")


def from_bashlex(text: str) -> tuple[list[RawCommand], list[str]]:
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
            if any(p.kind in _EXPANSIONS for p in getattr(part, "parts", None) or []):
                cmd.expanded.append(part.word)
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
