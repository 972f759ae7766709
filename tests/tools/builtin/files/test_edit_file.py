"""edit_file's three layers, forgiving matches and style preservation, through dispatch."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from axon_cli.tools.builtin.files.file_tools import EditFileInput
from tests.tools.builtin.files.test_file_tools import Tools


@pytest.fixture
def tools(project: Path) -> Tools:
    return Tools(project)


def _file(tools: Tools, name: str, data: bytes, read: bool = True) -> Path:
    path = tools.root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    if read:
        tools.ok("read_file", path=name)
    return path


def test_edit_returns_diff_summary_and_display(tools: Tools) -> None:
    path = _file(tools, "src/x.py", b"a = 1\nb = 2\nc = 3\n")
    res = tools.call("edit_file", path="src/x.py", old_string="b = 2\n", new_string="b = 20\nb2 = 4\n")
    assert res.ok
    assert path.read_bytes() == b"a = 1\nb = 20\nb2 = 4\nc = 3\n"
    assert res.content == ("--- a/src/x.py\n+++ b/src/x.py\n@@ -1,3 +1,4 @@\n a = 1\n-b = 2\n"
                           "+b = 20\n+b2 = 4\n c = 3")
    assert res.display["diff"] == res.content


def test_summary_counts_lines(tools: Tools) -> None:
    from axon_cli.kernel.events import ToolCallEnd

    seen: list[ToolCallEnd] = []
    tools.dispatcher.emit = lambda e: seen.append(e) if isinstance(e, ToolCallEnd) else None
    _file(tools, "s.py", b"one\ntwo\n")
    tools.ok("edit_file", path="s.py", old_string="two", new_string="2\n3\n4")
    assert seen[-1].summary == "edited s.py +3 -1"


def test_edit_requires_a_prior_read(tools: Tools) -> None:
    path = _file(tools, "a.py", b"x = 1\n", read=False)
    assert "has not been read in this session: read it first" in \
        tools.err("edit_file", path="a.py", old_string="x = 1", new_string="x = 2")
    assert path.read_bytes() == b"x = 1\n"


def test_external_change_is_refused(tools: Tools) -> None:
    path = _file(tools, "a.py", b"x = 1\n")
    path.write_bytes(b"x = 1\ny = 2\n")
    assert "modified since your last read" in tools.err("edit_file", path="a.py", old_string="x = 1",
                                                         new_string="x = 3")
    assert path.read_bytes() == b"x = 1\ny = 2\n"
    tools.ok("read_file", path="a.py")
    tools.ok("edit_file", path="a.py", old_string="x = 1", new_string="x = 3")
    assert path.read_bytes() == b"x = 3\ny = 2\n"


def test_same_size_change_with_new_mtime_is_refused_by_hash(tools: Tools) -> None:
    path = _file(tools, "a.py", b"x = 1\n")
    st = path.stat()
    path.write_bytes(b"x = 9\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert "modified since" in tools.err("edit_file", path="a.py", old_string="x", new_string="y")


def test_touch_with_identical_bytes_is_accepted(tools: Tools) -> None:
    path = _file(tools, "a.py", b"x = 1\n")
    st = path.stat()
    path.write_bytes(b"x = 1\n")                     # an editor saving the same bytes
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 7_000_000_000))
    tools.ok("edit_file", path="a.py", old_string="x = 1", new_string="x = 2")
    assert path.read_bytes() == b"x = 2\n"


def test_consecutive_edits_work(tools: Tools) -> None:
    path = _file(tools, "a.py", b"a\nb\nc\n")
    tools.ok("edit_file", path="a.py", old_string="a", new_string="A")
    tools.ok("edit_file", path="a.py", old_string="b", new_string="B")
    tools.ok("write_file", path="a.py", content="z\n")
    tools.ok("edit_file", path="a.py", old_string="z", new_string="Z")
    assert path.read_bytes() == b"Z\n"


def test_not_found_shows_the_closest_region(tools: Tools) -> None:
    body = "".join(f"line_{i} = {i}\n" for i in range(40)) + "def compute(x):\n    return x * 2\n"
    _file(tools, "m.py", body.encode())
    out = tools.err("edit_file", path="m.py", old_string="def compute(y):\n    return y * 2",
                    new_string="pass")
    assert "old_string not found" in out
    assert "    41\tdef compute(x):\n    42\t    return x * 2" in out


def test_not_found_without_anything_close(tools: Tools) -> None:
    _file(tools, "m.py", b"alpha\n")
    out = tools.err("edit_file", path="m.py", old_string="zzzzqqqq", new_string="x")
    assert out == "Error: old_string not found in the file (it must match exactly, including indentation)."


def test_multiple_matches_need_context_or_replace_all(tools: Tools) -> None:
    path = _file(tools, "d.py", b"x = 1\ny = 1\nx = 1\n")
    out = tools.err("edit_file", path="d.py", old_string="x = 1", new_string="x = 2")
    assert "appears 2 times" in out and "replace_all" in out
    assert path.read_bytes() == b"x = 1\ny = 1\nx = 1\n"
    tools.ok("edit_file", path="d.py", old_string="x = 1", new_string="x = 2", replace_all=True)
    assert path.read_bytes() == b"x = 2\ny = 1\nx = 2\n"


def test_identical_old_and_new_is_an_error(tools: Tools) -> None:
    _file(tools, "a.py", b"x\n")
    assert "identical" in tools.err("edit_file", path="a.py", old_string="x", new_string="x")


def test_crlf_file_stays_crlf_when_model_sends_lf(tools: Tools) -> None:
    path = _file(tools, "w.c", b"int a;\r\nint b;\r\nint c;\r\n")
    out = tools.ok("edit_file", path="w.c", old_string="int a;\nint b;\n", new_string="int a;\nint bb;\nint x;\n")
    assert path.read_bytes() == b"int a;\r\nint bb;\r\nint x;\r\nint c;\r\n"
    assert "line endings" in out


def test_single_line_edit_in_crlf_file_converts_new_lines(tools: Tools) -> None:
    path = _file(tools, "w.txt", b"a\r\nb\r\n")
    out = tools.ok("edit_file", path="w.txt", old_string="b", new_string="b\nc")
    assert path.read_bytes() == b"a\r\nb\r\nc\r\n" and "note" not in out


@pytest.mark.parametrize("data, old, new, expected", [
    (b"\xef\xbb\xbfcaf\xc3\xa9 = 1\n", "café = 1", "café = 2", b"\xef\xbb\xbfcaf\xc3\xa9 = 2\n"),
    ("x = 'é'\r\n".encode("utf-16"), "x", "y", "y = 'é'\r\n".encode("utf-16")),
    (b"name = 'Jos\xe9'\nk = 1\n", "k = 1", "k = 2", b"name = 'Jos\xe9'\nk = 2\n"),
    (b"no final newline", "final", "last", b"no last newline"),
    (b"ends\n\n", "ends", "stops", b"stops\n\n"),
], ids=["utf8-bom", "utf16", "latin1", "no-final-newline", "blank-final-line"])
def test_encoding_bom_and_final_newline_are_kept(tools: Tools, data: bytes, old: str, new: str,
                                                 expected: bytes) -> None:
    path = _file(tools, "f.txt", data)
    tools.ok("edit_file", path="f.txt", old_string=old, new_string=new)
    assert path.read_bytes() == expected


def test_mode_is_kept_and_no_temp_file_is_left(tools: Tools) -> None:
    path = _file(tools, "run.sh", b"echo hi\n")
    path.chmod(0o755)
    tools.ok("read_file", path="run.sh")
    tools.ok("edit_file", path="run.sh", old_string="hi", new_string="ho")
    assert stat.S_IMODE(path.stat().st_mode) == 0o755
    assert sorted(p.name for p in tools.root.iterdir()) == [".axon", ".git", "run.sh"]


def test_forgiving_trailing_whitespace(tools: Tools) -> None:
    path = _file(tools, "t.py", b"a = 1   \nb = 2\t\nc = 3\n")
    out = tools.ok("edit_file", path="t.py", old_string="a = 1\nb = 2\n", new_string="a = 10\nb = 20\n")
    assert path.read_bytes() == b"a = 10\nb = 20\nc = 3\n"
    assert "trailing whitespace" in out


def test_forgiving_tabs_vs_spaces_writes_tabs(tools: Tools) -> None:
    path = _file(tools, "g.go", b"func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n")
    out = tools.ok("edit_file", path="g.go", old_string="    if x {\n        return 1\n    }",
                   new_string="    if y {\n        return 2\n    }")
    assert path.read_bytes() == b"func f() {\n\tif y {\n\t\treturn 2\n\t}\n}\n"
    assert "indentation" in out


def test_forgiving_spaces_vs_tabs_writes_spaces(tools: Tools) -> None:
    path = _file(tools, "p.py", b"def f():\n    return 1\n")
    tools.ok("edit_file", path="p.py", old_string="def f():\n\treturn 1", new_string="def f():\n\treturn 2")
    assert path.read_bytes() == b"def f():\n    return 2\n"


def test_forgiving_curly_quotes_keeps_curly(tools: Tools) -> None:
    path = _file(tools, "q.md", "She said \u201chello\u201d and it\u2019s fine.\n".encode())
    out = tools.ok("edit_file", path="q.md", old_string='She said "hello" and it\'s fine.',
                   new_string='She said "bye" and it\'s fine.')
    assert path.read_text() == "She said \u201cbye\u201d and it\u2019s fine.\n"
    assert "quotes" in out


def test_ambiguous_forgiving_match_is_refused(tools: Tools) -> None:
    data = b"x = 1  \ny = 2\nx = 1\t\ny = 2\n"
    path = _file(tools, "amb.py", data)
    out = tools.err("edit_file", path="amb.py", old_string="x = 1 \ny = 2", new_string="z")
    assert "ignoring trailing whitespace it matches 2 places" in out
    assert path.read_bytes() == data


def test_ambiguous_indentation_match_is_refused(tools: Tools) -> None:
    data = b"x:\n\tgo()\ny\nx:\n\tgo()\n"
    path = _file(tools, "amb2.py", data)
    out = tools.err("edit_file", path="amb2.py", old_string="x:\n    go()", new_string="x:\n    stop()")
    assert "ignoring tabs-vs-spaces indentation it matches 2 places" \
        in out
    assert path.read_bytes() == data


def test_empty_old_string_creates_a_new_file_only(tools: Tools) -> None:
    res = tools.call("edit_file", path="new/mod.py", old_string="", new_string="x = 1\n")
    assert res.ok and res.content == "created new/mod.py, 1 lines"
    assert (tools.root / "new/mod.py").read_bytes() == b"x = 1\n"
    err = tools.err("edit_file", path="new/mod.py", old_string="", new_string="y")
    assert "old_string is empty" in err
    assert 'To append, use its last line as the anchor: old_string = "x = 1"' in err and "write_file" in err


def test_edit_errors_for_missing_directory_and_binary(tools: Tools) -> None:
    (tools.root / "d").mkdir()
    (tools.root / "main.py").write_text("x\n")
    assert "Did you mean: main.py?" in tools.err("edit_file", path="mian.py", old_string="a", new_string="b")
    tools.ctx.file_state.record(tools.root / "d", 0, 0, "")
    assert "is a directory" in tools.err("edit_file", path="d", old_string="a", new_string="b")
    _file(tools, "b.bin", b"\0\1\2abc")
    assert "binary" in tools.err("edit_file", path="b.bin", old_string="abc", new_string="x")


def test_edit_preview_is_the_diff_it_would_make(tools: Tools) -> None:
    spec = tools.registry.get("edit_file")
    assert spec is not None and spec.preview is not None
    path = _file(tools, "v.py", b"a\nb\n", read=False)
    inp = EditFileInput(path="v.py", old_string="b", new_string="c")
    assert spec.preview(inp, tools.ctx) == ""                       # would fail: not read
    tools.ok("read_file", path="v.py")
    assert spec.preview(inp, tools.ctx) == "--- a/v.py\n+++ b/v.py\n@@ -1,2 +1,2 @@\n a\n-b\n+c"
    assert path.read_bytes() == b"a\nb\n"
    assert spec.preview(EditFileInput(path="v.py", old_string="q", new_string="c"), tools.ctx) == ""


def test_the_files_own_name_as_old_string_is_refused_and_names_no_deletion(tools: Tools) -> None:
    # a small model "deletes" a file with edit_file(old_string=<its name>, new_string="")
    path = _file(tools, "notes/old_notes.txt", b"meeting moved to room 4\n", read=False)
    for old, new in (("old_notes.txt", ""), ("notes/old_notes.txt", "notes/old_notes.txt")):
        res = tools.call("edit_file", path="notes/old_notes.txt", old_string=old, new_string=new)
        assert not res.ok
        assert "old_string is the name of the file, not text in it" in res.content
        assert "rm " not in res.content and "notes/old_notes.txt with bash" not in res.content   # never unasked
    assert path.read_bytes() == b"meeting moved to room 4\n"
    _file(tools, "names.txt", b"see names.txt\n")            # the name really is in the text: a normal edit
    assert tools.call("edit_file", path="names.txt", old_string="names.txt", new_string="list.txt").ok


def test_forgiving_spacing_around_punctuation_writes_the_files_spacing(tools: Tools) -> None:
    # a 1.5B model sent workers=64 for "workers = 64" five times and never saw why it failed
    path = _file(tools, "app.ini", b"[server]\nbind = 127.0.0.1\nworkers = 64\nqueue = jobs\n")
    out = tools.ok("edit_file", path="app.ini", old_string="workers=64", new_string="workers=8")
    assert path.read_bytes() == b"[server]\nbind = 127.0.0.1\nworkers = 8\nqueue = jobs\n"
    assert "spacing around punctuation" in out
    code = _file(tools, "m.py", b"def sub(a, b):\n    return a + b\n")
    tools.ok("edit_file", path="m.py", old_string="return a+b", new_string="return a-b")
    assert code.read_bytes() == b"def sub(a, b):\n    return a-b\n"


def test_spacing_never_forgives_indentation_or_an_ambiguous_place(tools: Tools) -> None:
    data = b"if x:\n    y = 1\nz = 1\n"
    path = _file(tools, "i.py", data)
    assert "not found" in tools.err("edit_file", path="i.py", old_string="if x:\ny=1", new_string="if x:\ny=2")
    assert "ignoring spacing around punctuation it matches 2 places" in \
        tools.err("edit_file", path="i.py", old_string="=1", new_string="=2")
    assert path.read_bytes() == data


def test_a_read_after_a_refused_edit_says_the_edit_is_still_to_make(tools: Tools) -> None:
    # a 1.5B model read the file after the refusal and then answered "the port has been changed"
    path = _file(tools, "server.cfg", b"host = 0.0.0.0\nport = 8080\n", read=False)
    refused = tools.err("edit_file", path="server.cfg", old_string="port = 8080", new_string="port = 9417")
    assert "read it first with read_file, then make this change again (nothing was changed yet)" in refused
    read = tools.ok("read_file", path="server.cfg")
    assert read.endswith("\n[server.cfg is read now; the earlier change to it was not made: make it again, "
                         "old_string exactly as shown above]")
    assert not tools.ok("read_file", path="server.cfg").endswith("shown above]")     # said once
    tools.ok("edit_file", path="server.cfg", old_string="port = 8080", new_string="port = 9417")
    assert path.read_bytes() == b"host = 0.0.0.0\nport = 9417\n"
