"""list_files and search_files: gitignore-aware, sorted, capped with a count of what was left out.

ripgrep does the walking and matching when it is available; the pure-Python backend gives the
same output (see :mod:`axon_cli.tools.builtin.search.ripgrep`). Paths in results are relative to the project root.
"""

from __future__ import annotations

import heapq
import itertools
import os
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from axon_cli.policy.paths import sensitive_reason
from axon_cli.tools.spec import ToolContext, ToolError, ToolOutput, ToolSpec

if TYPE_CHECKING:
    from axon_cli.tools.builtin.search.search_notes import Matching

# The machinery (ripgrep, walk, notes) is imported when a search runs, not at start-up.

__all__ = ["TOOLS", "ListFilesInput", "SearchFilesInput", "list_paths", "search", "MAX_FILES",
           "MAX_MATCHES"]

MAX_FILES = 400
MAX_MATCHES = 200
MAX_MATCH_CHARS = 300


class ListFilesInput(BaseModel):
    path: str = Field(".", description="directory to list, relative to the project root")
    pattern: str | None = Field(None, description="glob such as **/*.py or src/*.{ts,tsx}; a glob "
                                "without '/' matches file names at any depth")


class SearchFilesInput(BaseModel):
    pattern: str = Field(description="regular expression (no lookaround or backreferences)")
    path: str = Field(".", description="directory or file to search, relative to the project root")
    glob: str | None = Field(None, description="only files matching this glob, e.g. *.py")
    ignore_case: bool = Field(False, description="case-insensitive match")


class _Smallest:
    """The ``keep`` smallest items seen, plus a count of all of them, in bounded memory."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.items: list[Any] = []
        self.total = 0

    def add(self, item: Any) -> None:
        self.total += 1
        self.items.append(item)
        if len(self.items) >= 2 * self.keep + 64:
            self.items = sorted(self.items)[: self.keep]

    def result(self) -> list[Any]:
        self.items = sorted(self.items)[: self.keep]
        return self.items


def _base(ctx: ToolContext, path: str) -> Path:
    base = ctx.resolve(path or ".")
    if not base.exists():
        raise ToolError(f"{ctx.relative(base)} does not exist")
    return base


def _glob_filter(base: Path, glob: str | None) -> Callable[[str], bool]:
    if not glob:
        return lambda _p: True
    from axon_cli.tools.builtin.search.walk import compile_glob

    match = compile_glob(glob)
    root = str(base if base.is_dir() else base.parent).rstrip(os.sep) + os.sep
    if os.sep == "/":
        return lambda p: match(p[len(root):])
    return lambda p: match(p[len(root):].replace(os.sep, "/"))


def _relative(ctx: ToolContext) -> Callable[[str], str]:
    """A fast ``ctx.relative`` for the absolute path strings the backends yield; a name that is not
    UTF-8 is shown with its bytes escaped (``bad\\xff.txt``), so every writer can encode it."""
    from axon_cli.kernel.textsafe import escape_surrogates

    root = str(ctx.project_root).rstrip(os.sep) + os.sep
    return lambda p: escape_surrogates(p[len(root):] if p.startswith(root) else ctx.relative(Path(p)))


def _listed_rg(ctx: ToolContext, base: Path, names: list[str], pattern: str | None) -> list[tuple[str, str]]:
    """(shown path, name) of ``names`` (relative to ``base``, as rg lists them) that match
    ``pattern``; the work per path is one join at most (a listing may hold 50,000 names)."""
    from axon_cli.kernel.textsafe import escape_surrogates
    from axon_cli.tools.builtin.search.walk import compile_glob

    if pattern:
        match = compile_glob(pattern)
        names = [n for n in names if match(n if os.sep == "/" else n.replace(os.sep, "/"))]
    full, root = str(base).rstrip(os.sep) + os.sep, str(ctx.project_root).rstrip(os.sep) + os.sep
    prefix = full[len(root):] if full.startswith(root) else ctx.relative(base).rstrip("/") + "/"
    shown = [prefix + n for n in names] if prefix else names
    if not all(n.isascii() for n in shown):
        shown = [escape_surrogates(n) for n in shown]
    return list(zip(shown, names, strict=True))


def list_paths(ctx: ToolContext, path: str, pattern: str | None, backend: str | None = None) -> ToolOutput:
    from axon_cli.tools.builtin.search.ripgrep import choose_backend, file_is_binary, list_files_rg
    from axon_cli.tools.builtin.search.walk import walk_files

    base = _base(ctx, path)
    files: Iterable[str]
    within = ""                              # what makes a listed name a path to open
    if choose_backend(backend) == "rg" and base.is_dir():
        listed = _listed_rg(ctx, base, list_files_rg(base, ctx.check_cancelled), pattern)
        within = str(base).rstrip(os.sep) + os.sep
    else:
        files = walk_files(base, ctx.check_cancelled)
        if pattern:
            keep = _glob_filter(base, pattern)
            files = [p for p in files if keep(p)]
        relative = _relative(ctx)
        listed = [(relative(p), p) for p in files]
    total = len(listed)
    shown: list[str] = []
    # Sorted, then sniffed for binary content only as far as shown: a listing of 50,000 files
    # opens about MAX_FILES of them (the count of those not shown may include binary files).
    for rel, full in heapq.nsmallest(2 * MAX_FILES, listed) if total > 2 * MAX_FILES else sorted(listed):
        if len(shown) == MAX_FILES:
            break
        if file_is_binary(within + full):
            total -= 1
        else:
            shown.append(rel)
    where = ctx.relative(base)
    if not shown:
        return ToolOutput(f"no files in {where}" + (f" match {pattern}" if pattern else ""),
                          summary="0 files", found_nothing=True)
    text = "\n".join(shown)
    if total > len(shown):
        text += (f"\n[… {total - len(shown)} more files not shown: narrow the path or pattern]")
    return ToolOutput(text, summary=f"{total} files")


def search(ctx: ToolContext, inp: SearchFilesInput, backend: str | None = None) -> ToolOutput:
    from axon_cli.tools.builtin.search.ripgrep import (
        choose_backend,
        compile_regex,
        file_is_binary,
        grep_python,
        grep_rg,
    )
    from axon_cli.tools.builtin.search.search_notes import definition_note, line_end_pattern

    line_end = line_end_pattern(inp.pattern)
    if line_end is not None:        # matching is line by line: a trailing \n is the end of the line
        return _with_note(search(ctx, inp.model_copy(update={"pattern": line_end}), backend),
                          f"[{inp.pattern!r} was searched as {line_end!r}: search_files matches line by line]")
    compile_regex(inp.pattern, inp.ignore_case)
    base = _base(ctx, inp.path)
    if base.is_file() and file_is_binary(base):
        raise ToolError(f"{ctx.relative(base)} is a binary file")
    keep = _glob_filter(base, inp.glob)
    grep = grep_rg if choose_backend(backend) == "rg" else grep_python
    found = _Smallest(MAX_MATCHES)
    files: set[str] = set()
    skipped_sensitive: set[str] = set()
    relative = _relative(ctx)
    # Searching a directory never reads secrets files (.env, keys, credentials) into the context:
    # the permission policy asks before they are read, so a broad search must not go around it.
    base_is_sensitive = sensitive_reason(ctx.relative(base)) is not None
    for p, number, text in grep(base, inp.pattern, inp.ignore_case, ctx.check_cancelled):
        if keep(p):
            rel = relative(p)
            if not base_is_sensitive and sensitive_reason(rel) is not None:
                skipped_sensitive.add(rel)
                continue
            files.add(rel)
            found.add((rel, number, text[:MAX_MATCH_CHARS] + ("…" if len(text) > MAX_MATCH_CHARS else "")))
    shown: list[tuple[str, int, str]] = found.result()
    note = (f"\n[{len(skipped_sensitive)} sensitive file(s) not searched ({', '.join(sorted(skipped_sensitive)[:5])}); "
            "name one as the path to search it (it asks permission)]" if skipped_sensitive else "")
    if not shown:
        everywhere = _matching(ctx, base, grep, _glob_filter(base, None), base_is_sensitive) if inp.glob else None
        return _nothing_found(ctx, inp, base, _matching(ctx, base, grep, keep, base_is_sensitive), everywhere,
                              note)
    lines = [f"{rel}:{number}: {text}" for rel, number, text in shown]
    if found.total > len(shown):
        shown_files = len({rel for rel, _, _ in shown})
        lines.append(f"[… {found.total - len(shown)} more matches not shown "
                     f"({found.total} in {len(files)} files, {shown_files} shown): narrow the pattern, "
                     "path or glob]")
    note = definition_note(inp.pattern, shown) + note
    return ToolOutput("\n".join(lines) + note, summary=f"{found.total} matches in {len(files)} files")


def _matching(ctx: ToolContext, base: Path, grep: Any, keep: Any, base_is_sensitive: bool) -> Matching:
    """Another search of the same files (the same skips, never a sensitive file unless named)."""
    relative = _relative(ctx)

    def matching(pattern: str, ignore_case: bool) -> Iterable[tuple[str, int, str]]:
        for p, number, text in grep(base, pattern, ignore_case, ctx.check_cancelled):
            rel = relative(p) if keep(p) else None
            if rel is not None and (base_is_sensitive or sensitive_reason(rel) is None):
                yield rel, number, text[:MAX_MATCH_CHARS]
    return matching


def _with_note(out: ToolOutput, note: str) -> ToolOutput:
    out.text = f"{out.text}\n{note}"
    return out


def _is_file(ctx: ToolContext, pattern: str) -> bool:
    try:
        return ctx.resolve(pattern.strip("^$").replace("\\.", ".")).is_file()
    except (OSError, ValueError):
        return False


def _nothing_found(ctx: ToolContext, inp: SearchFilesInput, base: Path, matching: Matching,
                   everywhere: Matching | None, note: str) -> ToolOutput:
    """No match: what a case-insensitive search would find, else what the same search finds outside
    the glob (``everywhere``), else the lines a looser search finds."""
    from axon_cli.tools.builtin.search.search_notes import (
        LOOSE_MAX,
        case_note,
        definition_note,
        file_name_note,
        loosened_how,
        looser_lines,
    )

    where = ctx.relative(base)
    case = "" if inp.ignore_case else case_note(inp.pattern, matching)
    pattern, found, head = inp.pattern, [], ""
    if not case and not _is_file(ctx, inp.pattern):
        if everywhere is not None:
            found = sorted(itertools.islice(everywhere(inp.pattern, inp.ignore_case), LOOSE_MAX + 1))
            head = (f"no matches for {inp.pattern!r} in {where} among {inp.glob} files; the same search "
                    "in every file finds:")
        if not found:
            pattern, found = looser_lines(inp.pattern, matching)
            head = (f"no exact matches for {inp.pattern!r} in {where}; a looser search "
                    f"({loosened_how(inp.pattern)}) finds:")
    if found:
        more = "" if len(found) <= LOOSE_MAX else "\n[… more not shown: search with a closer pattern]"
        shown = found[:LOOSE_MAX]
        return ToolOutput(head + "\n" + "\n".join(f"{rel}:{number}: {text}" for rel, number, text in shown)
                          + more + definition_note(pattern, shown) + note,
                          summary=f"0 matches, {len(shown)} found more widely")
    named = file_name_note(inp.pattern, lambda path: ctx.resolve(path).is_file())
    return ToolOutput(f"no matches for {inp.pattern!r} in {where}{note}{case}{named}",
                      summary="0 matches", found_nothing=True)


def _list_handler(inp: ListFilesInput, ctx: ToolContext) -> ToolOutput:
    return list_paths(ctx, inp.path, inp.pattern)


def _search_handler(inp: SearchFilesInput, ctx: ToolContext) -> ToolOutput:
    return search(ctx, inp)


TOOLS: list[ToolSpec[Any]] = [
    ToolSpec(
        name="list_files",
        description=(f"List files under a directory, recursively, sorted (at most {MAX_FILES}). "
                     "Skips .gitignored files, .git, node_modules, virtualenvs and binary files."),
        short_description="List project files (glob)",
        input_model=ListFilesInput, handler=_list_handler, category="read",
        is_read_only=lambda _i: True,
        paths=lambda i: [i.path], summarize=lambda i: f"{i.path} {i.pattern or ''}".strip()),
    ToolSpec(
        name="search_files",
        description=(f"Search file contents with a regex (ripgrep); prints file:line: text, sorted, at "
                     f"most {MAX_MATCHES} matches. Same skips as list_files."),
        short_description="Search file contents (regex)",
        input_model=SearchFilesInput, handler=_search_handler, category="read",
        is_read_only=lambda _i: True,
        paths=lambda i: [i.path], summarize=lambda i: i.pattern),
]
