"""A small bash lexer and flat parser: the fallback when bashlex cannot parse a command.

It does not build a full syntax tree. It finds every *simple command* (argv words after quote
removal, with its redirections), and the source text of every nested command (``$(…)``,
backticks, ``<(…)``, ``${…}`` and ``$((…))`` contents, unquoted heredoc bodies) so the caller can
analyse those too. Anything it does not understand raises ``ShellSyntaxError``: the caller then
treats the command as unparseable (and asks).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from axon_cli.shell.quote_scan import (
    ShellSyntaxError,
    decode_ansi_c,
    dollar,
    match_paren,
    scan_substitutions,
    skip_backtick,
    skip_double,
)

__all__ = ["RawCommand", "ShellSyntaxError", "parse_flat", "scan_substitutions", "decode_ansi_c"]

OPERATORS = sorted(["&&", "||", ";;&", ";;", ";&", "|&", "&>>", "&>", ">>", ">|", "<<<", "<<-", "<<", "<>",
                    ">&", "<&", "|", "&", ";", "<", ">", "(", ")", "\n"], key=len, reverse=True)
REDIRECTS = {">", ">>", ">|", "&>", "&>>", "<>", "<", "<<<", ">&", "<&", "<<", "<<-"}
SEPARATORS = {"&&", "||", ";", "&", "|", "|&", "\n", ";;", ";&", ";;&"}
RESERVED = {"if", "then", "else", "elif", "fi", "do", "done", "while", "until", "{", "}", "!", "coproc",
            "esac"}
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=")
MAX_DEPTH = 12


@dataclass
class RawCommand:
    words: list[str] = field(default_factory=list)
    assignments: list[str] = field(default_factory=list)
    redirects: list[tuple[str, str]] = field(default_factory=list)   # (operator, target word)
    piped: bool = False               # its stdin comes from the previous command's pipe
    expanded: list[str] = field(default_factory=list)   # words holding an expansion of this shell ($x, $(…))


@dataclass
class _Token:
    kind: str                         # "word" | "op"
    value: str
    subs: list[str] = field(default_factory=list)
    fd: bool = False                  # a word of digits glued to a following redirection
    expands: bool = False             # holds $x, ${…}, $(…), $((…)) or backticks outside single quotes


class _Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.tokens: list[_Token] = []
        self.pending_heredocs: list[tuple[str, bool, bool]] = []   # (delimiter, quoted, strip tabs)

    def run(self) -> list[_Token]:
        text = self.text
        while self.i < len(text):
            c = text[self.i]
            if c in " \t":
                self.i += 1
            elif c == "\\" and text.startswith("\\\n", self.i):
                self.i += 2
            elif c == "#":
                end = text.find("\n", self.i)
                self.i = len(text) if end < 0 else end
            elif c == "\n":
                self.tokens.append(_Token("op", "\n"))
                self.i += 1
                self._read_heredocs()
            elif text.startswith(("<(", ">("), self.i):
                self._word()
            elif any(text.startswith(op, self.i) for op in OPERATORS):
                op = next(op for op in OPERATORS if text.startswith(op, self.i))
                self.tokens.append(_Token("op", op))
                self.i += len(op)
                if op in ("<<", "<<-"):
                    self._heredoc_start(op == "<<-")
            else:
                self._word()
        if self.pending_heredocs:
            raise ShellSyntaxError("heredoc without its body")
        return self.tokens

    def _heredoc_start(self, strip: bool) -> None:
        while self.i < len(self.text) and self.text[self.i] in " \t":
            self.i += 1
        start = self.i
        self._word()
        raw = self.text[start:self.i]
        if not raw:
            raise ShellSyntaxError("heredoc without a delimiter")
        delim = self.tokens[-1].value
        self.pending_heredocs.append((delim, any(q in raw for q in "'\"\\"), strip))

    def _read_heredocs(self) -> None:
        for delim, quoted, strip in self.pending_heredocs:
            body: list[str] = []
            while True:
                if self.i >= len(self.text):
                    raise ShellSyntaxError(f"heredoc {delim!r} is not terminated")
                end = self.text.find("\n", self.i)
                end = len(self.text) if end < 0 else end
                line = self.text[self.i:end]
                self.i = min(end + 1, len(self.text))
                if (line.lstrip("\t") if strip else line) == delim:
                    break
                body.append(line)
            if not quoted and self.tokens:
                self.tokens[-1].subs.extend(scan_substitutions("\n".join(body)))
        self.pending_heredocs = []

    def _word(self) -> None:
        text, out, subs = self.text, [], []   # type: ignore[var-annotated]
        i, expands = self.i, False
        while i < len(text):
            c = text[i]
            if c in " \t\n;&|()<>":
                if c in "<>" and text.startswith("(", i + 1) and not out:
                    end = match_paren(text, i + 2)
                    subs.append(text[i + 2:end - 1])
                    out.append(text[i:end])
                    i = end
                    continue
                break
            if c == "\\":
                if text.startswith("\\\n", i):
                    i += 2
                    continue
                out.append(text[i + 1:i + 2])
                i += 2
            elif c == "'":
                end = text.find("'", i + 1)
                if end < 0:
                    raise ShellSyntaxError("unterminated single quote")
                out.append(text[i + 1:end])
                i = end + 1
            elif c == '"':
                end = skip_double(text, i + 1)
                inner = text[i + 1:end - 1]
                expands = expands or "$" in inner or "`" in inner
                subs.extend(scan_substitutions(inner))
                out.append(re.sub(r'\\([$`"\\\n])', r"\1", inner))
                i = end
            elif c == "`":
                end = skip_backtick(text, i + 1)
                subs.append(text[i + 1:end - 1].replace("\\`", "`"))
                out.append(text[i:end])
                i, expands = end, True
            elif c == "$" and text.startswith("$'", i):
                end = i + 2
                while end < len(text) and text[end] != "'":
                    end += 2 if text[end] == "\\" else 1
                if end >= len(text):
                    raise ShellSyntaxError("unterminated $'")
                out.append(decode_ansi_c(text[i + 2:end]))
                i = end + 1
            elif c == "$" and text.startswith('$"', i):
                i += 1                     # $"…" (locale translation) is a double-quoted string
            elif c == "$":
                lit, i = dollar(text, i, subs)
                out.append(lit)
                expands = True
            else:
                out.append(c)
                i += 1
        value = "".join(out)
        fd = value.isdigit() and i < len(text) and text[i] in "<>" and i == self.i + len(value)
        self.tokens.append(_Token("word", value, subs, fd, expands))
        self.i = i


def parse_flat(text: str) -> tuple[list[RawCommand], list[str]]:
    """Every simple command in ``text`` and the nested command texts to analyse as well."""
    tokens = _Lexer(text).run()
    commands: list[RawCommand] = []
    nested: list[str] = []
    cur = RawCommand()
    case_depth, in_pattern, in_test = 0, False, False
    i = 0

    def finish(piped: bool = False) -> None:
        nonlocal cur
        if cur.words or cur.assignments or cur.redirects:
            commands.append(cur)
        cur = RawCommand(piped=piped)

    while i < len(tokens):
        tok = tokens[i]
        nested.extend(tok.subs)
        if in_pattern:
            if tok.kind == "op" and tok.value == ")":
                in_pattern = False
            elif tok.kind == "word" and tok.value == "esac":
                case_depth -= 1
                in_pattern = False
            i += 1
            continue
        if tok.kind == "op":
            if in_test and tok.value not in ("\n",):
                cur.words.append(tok.value)
            elif tok.value in REDIRECTS:
                if i + 1 >= len(tokens) or tokens[i + 1].kind != "word":
                    raise ShellSyntaxError(f"redirection {tok.value} without a target")
                nested.extend(tokens[i + 1].subs)
                cur.redirects.append((tok.value, tokens[i + 1].value))
                i += 1
            elif tok.value in (";;", ";&", ";;&"):
                finish()
                in_pattern = case_depth > 0
            elif tok.value in SEPARATORS:
                finish(piped=tok.value in ("|", "|&"))
            elif tok.value == "(" and cur.words and i + 1 < len(tokens) and tokens[i + 1].value == ")":
                cur = RawCommand()            # a function definition: name ( )
                i += 1
            else:
                finish()
            i += 1
            continue
        word = tok.value
        if tok.fd:
            i += 1
            continue
        if in_test:
            cur.words.append(word)
            if word == "]]":
                in_test = False
                finish()
        elif not cur.words and word == "[[":
            in_test = True
            cur.words.append(word)
        elif not cur.words and not cur.assignments and word in RESERVED:
            if word == "esac":
                case_depth -= 1
        elif not cur.words and word in ("for", "select", "case", "function"):
            start, i = i, _skip_header(tokens, i, word)
            for skipped in tokens[start + 1:i]:
                nested.extend(skipped.subs)
            if word == "case":
                case_depth += 1
                in_pattern = True
            continue
        elif not cur.words and ASSIGNMENT.match(word):
            cur.assignments.append(word)
        else:
            cur.words.append(word)
            if tok.expands:
                cur.expanded.append(word)
        i += 1
    if in_test or in_pattern:
        raise ShellSyntaxError("unterminated [[ or case")
    finish()
    return commands, nested


def _skip_header(tokens: list[_Token], i: int, word: str) -> int:
    """Skip ``for NAME in WORDS``, ``case WORD in``, ``function NAME``: none of it runs a command."""
    i += 1
    if word == "function":
        return i + 1
    if word == "case":
        if i + 1 < len(tokens) and tokens[i + 1].value == "in":
            return i + 2
        raise ShellSyntaxError("case without in")
    i += 1                             # the loop variable
    if i < len(tokens) and tokens[i].kind == "word" and tokens[i].value == "in":
        while i < len(tokens) and tokens[i].kind == "word":
            i += 1
    return i
