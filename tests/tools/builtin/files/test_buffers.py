"""The file tools through an editor's buffers (``buffers.py``): what the client holds is read and
edited, staleness is judged by the buffer's content, and only the project's files go through it."""

from __future__ import annotations

from pathlib import Path

from axon_cli.tools.builtin.files.buffers import CLIENT_FILES
from tests.tools.builtin.files.test_file_tools import Tools


class FakeEditor:
    def __init__(self, buffers: dict[Path, str]) -> None:
        self.buffers = buffers
        self.asked: list[Path] = []
        self.written: list[tuple[Path, str]] = []

    def read_text(self, path: Path) -> str | None:
        self.asked.append(path)
        return self.buffers.get(path)

    def write_text(self, path: Path, text: str) -> bool:
        self.written.append((path, text))
        self.buffers[path] = text
        return True


def _tools(root: Path, buffers: dict[Path, str]) -> tuple[Tools, FakeEditor]:
    tools = Tools(root)
    editor = FakeEditor(buffers)
    tools.ctx.extra[CLIENT_FILES] = editor
    return tools, editor


def test_reads_and_edits_the_buffer_not_the_disk(project: Path) -> None:
    target = project / "a.py"
    target.write_text("x = 1\n")
    tools, editor = _tools(project, {target: "x = 2  # unsaved\n"})
    assert "x = 2  # unsaved" in tools.ok("read_file", path="a.py")
    tools.ok("edit_file", path="a.py", old_string="x = 2", new_string="x = 3")
    assert editor.written == [(target, "x = 3  # unsaved\n")]
    assert target.read_text() == "x = 1\n"


def test_a_buffer_changed_since_the_read_is_stale_by_content(project: Path) -> None:
    target = project / "a.py"
    target.write_text("x = 1\n")
    tools, editor = _tools(project, {target: "x = 1\n"})
    tools.ok("read_file", path="a.py")
    editor.buffers[target] = "x = 1\ny = 2\n"          # typed in the editor after the read
    assert "was modified since your last read" in tools.err("edit_file", path="a.py", old_string="x = 1",
                                                            new_string="x = 9")
    assert editor.written == [] and target.read_text() == "x = 1\n"


def test_files_outside_the_project_and_unanswered_reads_use_the_disk(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("on disk outside\n")
    inside = project / "b.txt"
    inside.write_text("on disk inside\n")
    tools, editor = _tools(project, {outside: "BUFFER"})
    assert "on disk outside" in tools.ok("read_file", path=str(outside))
    assert outside not in editor.asked
    assert "on disk inside" in tools.ok("read_file", path="b.txt")       # the editor has no buffer: None
    tools.ok("write_file", path="b.txt", content="new\n")
    assert editor.written == [(inside, "new\n")]
