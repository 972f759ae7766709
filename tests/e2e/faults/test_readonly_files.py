"""A file the user made read-only (no write bit for anyone, 0444) asks before it is changed, in every
mode below ``yolo`` — ``default``, ``accept-edits`` and ``auto`` with the sandbox and a snapshot —
whether by ``write_file``/``edit_file`` or a ``bash`` command that overwrites, appends to or edits it.
Headless, an ask is denied: the bytes and the mode stay. Approved (``--yes``) or in ``yolo``, the
change is made and the file keeps its mode. (The tests run as root, whom the bits do not stop: the
decision reads the mode bits.)"""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

FILE_CALLS = [("write_file", {"path": "ro1.txt", "content": "replaced\n"}),
              ("edit_file", {"path": "ro2.txt", "old_string": "original", "new_string": "edited"})]
BASH = {"cp src.txt ro3.txt": "ro3.txt", "echo x > ro4.txt": "ro4.txt", "echo x >> ro5.txt": "ro5.txt",
        "sed -i s/original/edited/ ro6.txt": "ro6.txt"}
ORIGINAL = "original text\n"


def _plant(project: Path) -> list[str]:
    (project / "src.txt").write_text("from src\n")
    names = [f"ro{i}.txt" for i in range(1, 7)]
    for name in names:
        (project / name).write_text(ORIGINAL)
        (project / name).chmod(0o444)
    return names


def _script(server) -> None:   # type: ignore[no-untyped-def]
    server.add(tool_reply(("read_file", {"path": "ro1.txt"}), ("read_file", {"path": "ro2.txt"})),
               tool_reply(*FILE_CALLS, *[("bash", {"command": c}) for c in BASH]), text_reply("done"))


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mode", ["default", "accept-edits", pytest.param("auto", marks=needs_namespaces)])
def test_below_yolo_a_read_only_file_is_not_changed_unasked(server, run_axon, project: Path, mode: str) -> None:
    names = _plant(project)
    _script(server)
    r = run_axon("run", "change the files", "--mode", mode, "--sandbox", "auto")   # no --yes: asks are denied
    assert r.code == 0, r.stderr
    assert "Traceback" not in r.stderr
    for name in names:
        assert (project / name).read_text() == ORIGINAL, name
        assert _mode(project / name) == 0o444, name
    results = [m["content"] for m in server.requests[2].messages if m["role"] == "tool"][2:]   # after the reads
    assert len(results) == len(FILE_CALLS) + len(BASH)
    assert all(c.startswith("Permission denied") for c in results), results


@pytest.mark.parametrize("how", [("--mode", "accept-edits", "--yes"), ("--mode", "yolo")])
def test_approved_or_in_yolo_the_change_is_made_and_the_mode_kept(server, run_axon, project: Path,
                                                                  how: tuple[str, ...]) -> None:
    names = _plant(project)
    _script(server)
    r = run_axon("run", "change the files", *how, "--sandbox", "off")
    assert r.code == 0, r.stderr
    assert (project / "ro1.txt").read_text() == "replaced\n"
    assert (project / "ro2.txt").read_text() == "edited text\n"
    assert (project / "ro3.txt").read_text() == "from src\n"
    assert (project / "ro6.txt").read_text() == "edited text\n"
    assert _mode(project / "ro1.txt") == _mode(project / "ro2.txt") == 0o444   # the file tools keep the mode
    assert all((project / n).exists() for n in names)


def test_a_writable_file_is_still_edited_unasked_in_accept_edits(server, run_axon, project: Path) -> None:
    (project / "rw.txt").write_text(ORIGINAL)
    server.add(tool_reply(("read_file", {"path": "rw.txt"})),
               tool_reply(("write_file", {"path": "rw.txt", "content": "replaced\n"})), text_reply("done"))
    r = run_axon("run", "change it", "--mode", "accept-edits", "--sandbox", "off")
    assert r.code == 0, r.stderr
    assert (project / "rw.txt").read_text() == "replaced\n"
