"""What a constrained call may be (``agent/guidance/grounded_call.py``), per case: the files an edit
may target and the lines it may name, the paths a read may name, the tools left out."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from axon_cli.agent.guidance.grounded_call import MAX_EDIT_BYTES, MAX_EDIT_FILES, MAX_LISTED, grounded_tools
from axon_cli.settings.config import Settings
from axon_cli.tools.builtin.files.fileio import record_state
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

TOOLS = [s.openai_tool() for s in ToolRegistry.with_builtins().active()
         if s.name in ("read_file", "edit_file", "write_file", "bash")]


def context(root: Path) -> ToolContext:
    return ToolContext(project_root=root, state_dir=root / ".axon", session_id="s", settings=Settings())


def edits(tools: list[dict[str, Any]]) -> dict[str, list[str]]:
    return {t["function"]["parameters"]["properties"]["path"]["const"]:
            t["function"]["parameters"]["properties"]["old_string"]["enum"]
            for t in tools if t["function"]["name"] == "edit_file"}


def read_paths(tools: list[dict[str, Any]]) -> list[str] | None:
    read = next(t for t in tools if t["function"]["name"] == "read_file")
    return read["function"]["parameters"]["properties"]["path"].get("enum")


def read(ctx: ToolContext, rel: str, text: str) -> Path:
    path = ctx.project_root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    record_state(ctx, path)
    return path


def test_an_edit_names_a_read_files_unique_lines_and_nothing_else(tmp_path):
    ctx = context(tmp_path)
    read(ctx, "a.py", "def f():\n    return 1\n\n    return 1\nX = 1\r\n")
    (tmp_path / "unread.py").write_text("Y = 2\n")
    tools = grounded_tools(TOOLS, ctx, set())
    assert edits(tools) == {"a.py": ["def f():", "X = 1"]}    # "return 1" twice, blank, CR kept off
    edit = next(t for t in tools if t["function"]["name"] == "edit_file")["function"]["parameters"]
    assert "replace_all" not in edit["properties"] and set(edit["required"]) == {"path", "old_string", "new_string"}
    assert {t["function"]["name"] for t in tools} == {"read_file", "edit_file", "write_file", "bash"}


def test_a_file_changed_since_it_was_read_offers_no_edit(tmp_path):
    ctx = context(tmp_path)
    path = read(ctx, "a.py", "A = 1\n")
    path.write_text("A = 2\n")
    os.utime(path, ns=(1, 1))
    assert edits(grounded_tools(TOOLS, ctx, set())) == {}


def test_same_size_and_time_but_other_bytes_offers_no_edit(tmp_path):
    ctx = context(tmp_path)
    path = read(ctx, "a.py", "A = 1\n")
    st = path.stat()
    path.write_text("B = 1\n")
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert edits(grounded_tools(TOOLS, ctx, set())) == {}


def test_outside_the_project_large_or_binary_files_offer_no_edit(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    ctx = context(root)
    outside = tmp_path / "outside.py"
    outside.write_text("SECRET = 1\n")
    record_state(ctx, outside)
    read(ctx, "big.txt", "line\n" + "x" * MAX_EDIT_BYTES)
    (root / "bin.dat").write_bytes(b"A\0B\n")
    record_state(ctx, root / "bin.dat")
    assert edits(grounded_tools(TOOLS, ctx, set())) == {}


def test_only_the_files_read_last_are_offered(tmp_path):
    ctx = context(tmp_path)
    for i in range(MAX_EDIT_FILES + 2):
        read(ctx, f"f{i}.py", f"V{i} = {i}\n")
    offered = edits(grounded_tools(TOOLS, ctx, set()))
    assert sorted(offered) == sorted(f"f{i}.py" for i in range(2, MAX_EDIT_FILES + 2))


def test_a_read_names_a_project_file_unless_the_project_is_too_large_to_list(tmp_path):
    ctx = context(tmp_path)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("")
    (tmp_path / ".gitignore").write_text("build/\n")
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "out.js").write_text("")
    assert sorted(read_paths(grounded_tools(TOOLS, ctx, set())) or []) == [".gitignore", "src/m.py"]
    for i in range(MAX_LISTED):
        (tmp_path / "src" / f"g{i}.py").write_text("")
    assert read_paths(grounded_tools(TOOLS, ctx, set())) is None


def test_an_avoided_tool_is_left_out_unless_nothing_would_be_left(tmp_path):
    ctx = context(tmp_path)
    names = {t["function"]["name"] for t in grounded_tools(TOOLS, ctx, {"bash", "read_file"})}
    assert names == {"write_file"}               # edit_file: no file read, so no edit either
    everything = {"read_file", "edit_file", "write_file", "bash"}
    assert {t["function"]["name"] for t in grounded_tools(TOOLS, ctx, everything)} >= {"bash", "write_file"}


def test_a_file_still_to_be_moved_offers_no_edit(tmp_path):
    ctx = context(tmp_path)
    source = read(ctx, "draft.txt", "1. pick a venue\n")
    read(ctx, "other.txt", "kept\n")
    assert edits(grounded_tools(TOOLS, ctx, set(), {source})) == {"other.txt": ["kept"]}


def test_only_values_json_writes_as_they_are_are_offered(tmp_path):
    """llama-cpp-python 0.3.x writes an escaped enum value into an invalid grammar, and the server dies
    on it: a line or a path whose JSON form has an escape is never a choice."""
    ctx = context(tmp_path)
    read(ctx, "a.py", 'NAME = "demo"\npath = "C:\\\\x"\nTAB\t= 1\nCAFE = "café"\nPLAIN = 1\n')
    assert edits(grounded_tools(TOOLS, ctx, set())) == {"a.py": ["PLAIN = 1"]}
    assert read_paths(grounded_tools(TOOLS, ctx, set())) == ["a.py"]
    read(ctx, "résumé.md", "PLAIN = 2\n")
    tools = grounded_tools(TOOLS, ctx, set())
    assert read_paths(tools) is None and edits(tools) == {"a.py": ["PLAIN = 1"]}


def test_a_tool_whose_own_schema_has_an_escaped_choice_is_left_out(tmp_path):
    odd = {"type": "function", "function": {"name": "lookup", "parameters": {
        "type": "object", "properties": {"kind": {"type": "string", "enum": ["plain", 'say "hi"']}}}}}
    names = {t["function"]["name"] for t in grounded_tools([*TOOLS, odd], context(tmp_path), set())}
    assert "lookup" not in names and "bash" in names
