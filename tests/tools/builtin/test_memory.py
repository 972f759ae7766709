"""memory_save / memory_read through dispatch: files under .axon/memory, names, listing, errors."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest

from axon_cli.kernel.state import GITIGNORE
from axon_cli.settings.config import Settings
from axon_cli.tools.builtin.memory import MAX_CONTENT_CHARS
from axon_cli.tools.dispatch import CallResult, Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext


@pytest.fixture
def dispatcher(tmp_path: Path) -> Dispatcher:
    registry = ToolRegistry.with_builtins()
    registry.activate(["memory_save", "memory_read"])
    project = tmp_path / "proj"     # its parent is this test's own folder, searched for escaped writes
    project.mkdir()
    ctx = ToolContext(project_root=project, state_dir=project / ".axon", session_id="s",
                      settings=Settings(), registry=registry)
    return Dispatcher(registry, ctx)


IDS = itertools.count()


def run(dispatcher: Dispatcher, tool: str, /, **args: object) -> CallResult:
    return dispatcher.dispatch(ToolCall(id=f"c{next(IDS)}", name=tool, arguments=json.dumps(args)))


def memory_files(dispatcher: Dispatcher) -> list[str]:
    folder = dispatcher.ctx.state_dir / "memory"
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_save_then_read(dispatcher):
    r = run(dispatcher, "memory_save", name="build-notes", content="Run `make test`.\nUse py3.10")
    assert (r.ok, r.content) == (True, "Memory 'build-notes' saved (28 chars) in .axon/memory/build-notes.md.")
    path = dispatcher.ctx.state_dir / "memory" / "build-notes.md"
    assert path.read_bytes() == b"Run `make test`.\nUse py3.10\n"
    assert (dispatcher.ctx.state_dir / ".gitignore").read_text() == GITIGNORE
    assert run(dispatcher, "memory_read", name="build-notes").content == "Run `make test`.\nUse py3.10\n"
    assert run(dispatcher, "memory_read", name="build-notes.md").content == "Run `make test`.\nUse py3.10\n"


def test_save_replaces_atomically(dispatcher):
    run(dispatcher, "memory_save", name="a", content="old")
    r = run(dispatcher, "memory_save", name="a", content="new text\n")
    assert r.content == "Memory 'a' replaced (9 chars) in .axon/memory/a.md."
    assert memory_files(dispatcher) == ["a.md"]          # no temp files left behind
    assert run(dispatcher, "memory_read", name="a").content == "new text\n"


def test_read_without_name_lists_with_sizes_and_first_lines(dispatcher):
    assert run(dispatcher, "memory_read").content == "No memories saved yet (memory_save creates one)."
    run(dispatcher, "memory_save", name="zeta", content="\n\n# Zeta facts\nmore")
    run(dispatcher, "memory_save", name="alpha", content="x" * 100)
    r = run(dispatcher, "memory_read")
    assert r.ok
    assert r.content.splitlines() == [
        "2 saved memories:",
        "- alpha (101 bytes): " + "x" * 79 + "…",
        "- zeta (20 bytes): # Zeta facts",
    ]


def test_read_missing_name_lists_names(dispatcher):
    r = run(dispatcher, "memory_read", name="nothing")
    assert (r.ok, r.content) == (False, "Error: no memory named 'nothing'. Saved memories: none saved yet")
    run(dispatcher, "memory_save", name="b", content="1")
    run(dispatcher, "memory_save", name="a", content="2")
    r = run(dispatcher, "memory_read", name="c")
    assert r.content == "Error: no memory named 'c'. Saved memories: a, b"


@pytest.mark.parametrize("bad", ["../escape", "a/b", "/etc/passwd", "..", ".hidden", "", "a b", "x" * 101,
                                 "name\x00", "..\\win"])
def test_bad_names_are_refused_and_nothing_is_written(dispatcher, bad):
    r = run(dispatcher, "memory_save", name=bad, content="pwned")
    assert not r.ok and r.content.startswith("Error: invalid memory name")
    read = run(dispatcher, "memory_read", name=bad)
    assert read.ok if bad == "" else read.content.startswith("Error: invalid memory name")   # "" lists
    root = dispatcher.ctx.project_root
    assert [p for p in root.parent.rglob("*") if p.is_file() and p.read_bytes() == b"pwned\n"] == []


def test_too_long_content_is_refused(dispatcher):
    r = run(dispatcher, "memory_save", name="big", content="x" * (MAX_CONTENT_CHARS + 1))
    assert not r.ok and "at most 100000" in r.content
    assert memory_files(dispatcher) == []


def test_missing_arguments_are_validation_errors(dispatcher):
    r = run(dispatcher, "memory_save", name="x")
    assert r.content.splitlines()[1] == "  - content: Field required (expected string)"


def test_flags_for_the_permission_layer():
    from axon_cli.tools.builtin.memory import MemoryReadInput, MemorySaveInput
    registry = ToolRegistry.with_builtins()
    save, read = registry.get("memory_save"), registry.get("memory_read")
    assert save is not None and read is not None
    inp = MemorySaveInput(name="n", content="c")
    assert (save.category, save.is_read_only(inp), save.is_destructive(inp), save.deferred) == (
        "other", False, False, True)
    assert save.paths(inp) == [".axon/memory/n.md"] and not save.concurrency_safe(inp)
    rinp = MemoryReadInput()
    assert (read.category, read.is_read_only(rinp), read.deferred, read.concurrency_safe(rinp)) == (
        "read", True, True, True)


def test_unwritable_memory_dir_is_an_error_not_a_crash(dispatcher):
    state = dispatcher.ctx.state_dir
    state.mkdir()
    (state / "memory").write_text("a file where the directory should be")
    r = run(dispatcher, "memory_save", name="n", content="c")
    assert not r.ok and r.content.startswith("Error: could not save memory 'n':")
