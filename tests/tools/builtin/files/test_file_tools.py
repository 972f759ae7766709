"""read_file and write_file through dispatch; the spec facts of the file and search tools."""

from __future__ import annotations

import itertools
import json
import os
import stat
import tracemalloc
from pathlib import Path

import pytest

from axon_cli.settings.config import Settings
from axon_cli.tools.builtin.files.fileio import default_file_mode
from axon_cli.tools.dispatch import CallResult, Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext


class Tools:
    """A tmp project with the real registry and dispatcher (AllowAll policy)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.ctx = ToolContext(project_root=root, state_dir=root / ".axon", session_id="test",
                               settings=Settings())
        self.registry = ToolRegistry.with_builtins()
        self.dispatcher = Dispatcher(self.registry, self.ctx)
        self._ids = itertools.count(1)

    def call(self, name: str, **args: object) -> CallResult:
        return self.dispatcher.dispatch(ToolCall(f"call_{next(self._ids)}", name, json.dumps(args)))

    def ok(self, name: str, **args: object) -> str:
        res = self.call(name, **args)
        assert res.ok, res.content
        return res.content

    def err(self, name: str, **args: object) -> str:
        res = self.call(name, **args)
        assert not res.ok, res.content
        return res.content


@pytest.fixture
def tools(project: Path) -> Tools:
    return Tools(project)


# -- read_file --------------------------------------------------------------------------------

def test_read_numbers_lines_like_cat_n(tools: Tools) -> None:
    (tools.root / "a.txt").write_text("alpha\n\tbeta\ngamma")
    assert tools.ok("read_file", path="a.txt") == "     1\talpha\n     2\t\tbeta\n     3\tgamma"


def test_read_pages_with_offset_and_limit_and_says_how_to_continue(tools: Tools) -> None:
    (tools.root / "n.txt").write_text("".join(f"line {i}\n" for i in range(1, 2501)))
    first = tools.ok("read_file", path="n.txt")
    lines = first.split("\n")
    assert lines[0] == "     1\tline 1" and lines[1999] == "  2000\tline 2000"
    assert "offset=2001" in first and "  2001\t" not in first
    page = tools.ok("read_file", path="n.txt", offset=2499, limit=5)
    assert page == "  2499\tline 2499\n  2500\tline 2500"
    assert "offset=13" in tools.ok("read_file", path="n.txt", offset=10, limit=3)
    assert "past the end" in tools.err("read_file", path="n.txt", offset=3000)


def test_read_cuts_long_lines(tools: Tools) -> None:
    (tools.root / "long.txt").write_text("x" * 5000 + "\nshort\n")
    out = tools.ok("read_file", path="long.txt")
    first = out.split("\n")[0]
    assert first == "     1\t" + "x" * 2000 + " [… line cut]"
    assert "     2\tshort" in out and "cut" in out.split("\n")[-1]


def test_read_binary_file_is_one_line(tools: Tools) -> None:
    (tools.root / "data.bin").write_bytes(b"\0\0\0" + bytes(range(256)) * 4)
    assert tools.ok("read_file", path="data.bin") == "binary file, 1027 bytes"


def test_read_non_utf8_is_replaced_and_said(tools: Tools) -> None:
    (tools.root / "latin.txt").write_bytes(b"caf\xe9\nok\n")
    out = tools.ok("read_file", path="latin.txt")
    assert out.startswith("     1\tcaf\ufffd\n     2\tok")
    assert "not valid UTF-8" in out


def test_read_crlf_bom_and_utf16(tools: Tools) -> None:
    (tools.root / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\n")
    assert tools.ok("read_file", path="w.txt") == "     1\tone\n     2\ttwo"
    (tools.root / "u16.txt").write_bytes("h\u00e9llo\nworld\n".encode("utf-16"))
    assert tools.ok("read_file", path="u16.txt") == "     1\th\u00e9llo\n     2\tworld"


def test_read_directory_missing_and_empty(tools: Tools) -> None:
    (tools.root / "src").mkdir()
    (tools.root / "src" / "main.py").write_text("x\n")
    (tools.root / "empty.txt").write_text("")
    assert "is a directory: use list_files" in tools.err("read_file", path="src")
    assert tools.err("read_file", path="src/mian.py") == \
        "Error: src/mian.py does not exist. Did you mean: src/main.py?"
    assert "nor does its directory" in tools.err("read_file", path="nope/x.py")
    assert tools.ok("read_file", path="empty.txt") == "(empty file)"


def test_read_of_a_huge_file_is_bounded(tools: Tools) -> None:
    big = tools.root / "big.log"
    with big.open("wb") as fh:
        fh.write(b"".join(b"row %d\n" % i for i in range(1, 3001)))
        fh.write(b"y" * (40 * 1024 * 1024))          # one 40 MB line after line 3000
    tracemalloc.start()
    try:
        out = tools.ok("read_file", path="big.log")
        tail = tools.ok("read_file", path="big.log", offset=3000, limit=2)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(out) < 100_000 and out.split("\n")[1999] == "  2000\trow 2000"
    assert tail.split("\n")[:2] == ["  3000\trow 3000", "  3001\t" + "y" * 2000 + " [… line cut]"]
    assert peak < 8 * 1024 * 1024, peak


def test_read_records_state_for_the_edit_layers(tools: Tools) -> None:
    path = tools.root / "s.txt"
    path.write_text("abc\n")
    tools.ok("read_file", path="s.txt", limit=1)
    rec = tools.ctx.file_state.get(path)
    assert rec is not None and rec.size == 4 and rec.mtime_ns == path.stat().st_mtime_ns
    assert rec.sha256 == "edeaaff3f1774ad2888673770c6d64097e391bc362d7d6fb34982ddf0efd18cb"


# -- write_file -------------------------------------------------------------------------------

def test_write_creates_file_and_parents_with_default_mode(tools: Tools) -> None:
    res = tools.call("write_file", path="deep/er/new.py", content="a\nb\nc")
    assert res.ok and res.content == "created deep/er/new.py, 3 lines"
    path = tools.root / "deep/er/new.py"
    assert path.read_bytes() == b"a\nb\nc"
    assert stat.S_IMODE(path.stat().st_mode) == default_file_mode()
    assert "+a" in res.display["diff"]


def test_overwrite_needs_a_read_then_returns_a_diff_and_keeps_mode(tools: Tools) -> None:
    path = tools.root / "run.sh"
    path.write_text("echo one\n")
    path.chmod(0o750)
    assert "read it first" in tools.err("write_file", path="run.sh", content="echo two\n")
    assert path.read_text() == "echo one\n"
    tools.ok("read_file", path="run.sh")
    res = tools.call("write_file", path="run.sh", content="echo two\n")
    assert res.ok and "-echo one\n+echo two" in res.content
    assert path.read_text() == "echo two\n" and stat.S_IMODE(path.stat().st_mode) == 0o750
    tools.ok("write_file", path="run.sh", content="echo three\n")   # state was updated by the write
    assert path.read_text() == "echo three\n"
    assert [p.name for p in tools.root.iterdir() if p.name.startswith(".run.sh")] == []


def test_emptying_a_file_says_it_still_exists_and_how_to_delete_it(tools: Tools) -> None:
    (tools.root / "old_notes.txt").write_text("meeting moved\n")
    tools.ok("read_file", path="old_notes.txt")
    res = tools.call("write_file", path="old_notes.txt", content="")
    assert res.ok and (tools.root / "old_notes.txt").read_text() == ""
    assert "now empty but still exists" in res.content and "`rm old_notes.txt`" in res.content
    assert "still exists" not in tools.call("write_file", path="old_notes.txt", content="x\n").content
    emptied = tools.call("edit_file", path="old_notes.txt", old_string="x", new_string="")   # leaves "\n"
    assert emptied.ok and "`rm old_notes.txt`" in emptied.content


def test_overwrite_refused_when_changed_on_disk(tools: Tools) -> None:
    path = tools.root / "c.txt"
    path.write_text("v1\n")
    tools.ok("read_file", path="c.txt")
    path.write_text("v2 external\n")
    assert "modified since your last read" in tools.err("write_file", path="c.txt", content="mine\n")
    assert path.read_text() == "v2 external\n"


def test_write_keeps_crlf_and_bom_of_replaced_file(tools: Tools) -> None:
    path = tools.root / "w.txt"
    path.write_bytes(b"\xef\xbb\xbfold\r\n")
    tools.ok("read_file", path="w.txt")
    tools.ok("write_file", path="w.txt", content="new\nlines\n")
    assert path.read_bytes() == b"\xef\xbb\xbfnew\r\nlines\r\n"


def test_write_into_a_directory_path_is_an_error(tools: Tools) -> None:
    (tools.root / "d").mkdir()
    assert "is a directory" in tools.err("write_file", path="d", content="x")


def test_write_preview_shows_the_diff_without_writing(tools: Tools) -> None:
    from axon_cli.tools.builtin.files.file_tools import WriteFileInput

    path = tools.root / "p.txt"
    path.write_text("one\n")
    spec = tools.registry.get("write_file")
    assert spec is not None and spec.preview is not None
    assert spec.preview(WriteFileInput(path="p.txt", content="two\n"), tools.ctx) == ""  # not read yet
    tools.ok("read_file", path="p.txt")
    diff = spec.preview(WriteFileInput(path="p.txt", content="two\n"), tools.ctx)
    assert "-one\n+two" in diff and path.read_text() == "one\n"


# -- spec facts -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["read_file", "list_files", "search_files"])
def test_read_tools_are_read_only_and_concurrency_safe(tools: Tools, name: str) -> None:
    spec = tools.registry.get(name)
    assert spec is not None and spec.category == "read" and spec.short_description
    model = spec.input_model.model_validate({"path": "x", "pattern": "y"})
    assert spec.is_read_only(model) and spec.concurrency_safe(model)


@pytest.mark.parametrize("name", ["write_file", "edit_file"])
def test_edit_tools_facts(tools: Tools, name: str) -> None:
    spec = tools.registry.get(name)
    assert spec is not None and spec.category == "edit" and spec.short_description
    model = spec.input_model.model_validate({"path": "src/x.py", "content": "", "old_string": "a",
                                             "new_string": "b"})
    assert not spec.is_read_only(model) and not spec.concurrency_safe(model)
    assert spec.paths(model) == ["src/x.py"] and spec.preview is not None
    props = spec.json_schema()["properties"]
    assert all(p.get("description") for p in props.values())


def test_tool_descriptions_stay_compact(tools: Tools) -> None:
    for name in ("read_file", "write_file", "edit_file", "list_files", "search_files"):
        spec = tools.registry.get(name)
        assert spec is not None and len(json.dumps(spec.openai_tool())) < 1100, name


def test_no_umask_change_leaks(tools: Tools) -> None:
    before = os.umask(0o022)
    os.umask(before)
    default_file_mode()
    after = os.umask(before)
    os.umask(after)
    assert before == after
