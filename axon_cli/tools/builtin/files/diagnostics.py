"""Diagnostics after an edit: a quick check of the changed file, reported only when the edit made it worse.

Python files are compiled in-process with the interpreter's own ``compile`` (no new dependency):
a ``SyntaxError``/``IndentationError`` is one problem with its line, column, message and the
offending line. Files of any kind are checked by a command the user configured per glob
(``[diagnostics]`` in config.toml, see :mod:`axon_cli.tools.builtin.files.diag_command`), and
those no glob matches by a language server on PATH, inside the sandbox
(:mod:`axon_cli.tools.builtin.files.lsp_check`). A check never blocks or undoes the edit: whatever
goes wrong in it is silence, not an error.

"Only what the edit introduced": the same check runs on the text before the edit, and a problem
that was already there (same message on the same source line, wherever the line moved) is not
reported again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Problem", "python_problems", "new_problems", "report", "MAX_PROBLEMS", "MAX_CHECK_BYTES"]

MAX_PROBLEMS = 10            # problems shown in one tool result
MAX_LINE_CHARS = 200         # an offending line is cut to this
MAX_CHECK_BYTES = 2_000_000  # larger files are not compiled (the check must stay quick)


@dataclass(frozen=True)
class Problem:
    """One diagnostic: where, what, and the source line it is about (for matching before/after)."""

    line: int
    column: int
    message: str
    source: str = ""

    def key(self) -> tuple[str, str]:
        """What makes two problems "the same" across an edit: the message and the offending line's
        text (line numbers move when lines are added above)."""
        return self.message, self.source.strip()

    def render(self, rel: str) -> str:
        where = f"{rel}:{self.line}:{self.column}" if self.column else f"{rel}:{self.line}"
        text = f"  {where}: {self.message}"
        if self.source.strip():
            text += f"\n    {self.line} | {_cut(self.source.rstrip())}"
        return text


def _cut(text: str) -> str:
    return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + "…"


def python_problems(text: str, path: Path) -> list[Problem]:
    """The first syntax problem ``compile`` finds (it stops at one), or none."""
    import warnings

    if len(text) > MAX_CHECK_BYTES:
        return []
    try:
        with warnings.catch_warnings():      # SyntaxWarnings (invalid escapes) must not reach the terminal
            warnings.simplefilter("ignore")
            # a name that is no file on disk: for a real path, the error's line could be read from the
            # file (which holds the new text while the old one is checked)
            compile(text, f"<{path.name}>", "exec", dont_inherit=True)
    except SyntaxError as e:                 # IndentationError and TabError are SyntaxErrors
        line = e.lineno or 0
        source = _line_of(text, line) or e.text
        return [Problem(line, e.offset or 0, f"{type(e).__name__}: {e.msg}", (source or "").rstrip("\r\n"))]
    except (ValueError, RecursionError, MemoryError, OverflowError):   # NUL bytes, deep nesting: no verdict
        return []
    return []


def _line_of(text: str, line: int) -> str:
    lines = text.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


def new_problems(before: list[Problem], after: list[Problem]) -> list[Problem]:
    """The problems of ``after`` that ``before`` did not have."""
    seen = {p.key() for p in before}
    return [p for p in after if p.key() not in seen]


Checker = Callable[[str, Path], list[Problem]]


def checker_for(path: Path) -> Checker | None:
    """The in-process check for this kind of file, if there is one."""
    if path.suffix in (".py", ".pyi", ".pyw"):
        return python_problems
    return None


def report(rel: str, problems: list[Problem], checked_by: str) -> str:
    """The text appended to the tool result (empty when there is nothing new)."""
    if not problems:
        return ""
    shown = problems[:MAX_PROBLEMS]
    head = (f"\n\ndiagnostics ({checked_by}): this change introduced {len(problems)} problem"
            f"{'s' if len(problems) != 1 else ''} in {rel}; the file IS written as shown above — fix it "
            "with another edit:")
    more = f"\n  [… {len(problems) - len(shown)} more]" if len(problems) > len(shown) else ""
    return head + "\n" + "\n".join(p.render(rel) for p in shown) + more


def check_edit(path: Path, rel: str, old_text: str, new_text: str, created: bool) -> str:
    """The in-process check of one edit: what to append to its result ("" = nothing new)."""
    check = checker_for(path)
    if check is None:
        return ""
    before = [] if created else check(old_text, path)
    after = check(new_text, path)
    return report(rel, new_problems(before, after), "python compile")
