"""A broken snapshot store — a corrupted shadow repository (garbage HEAD, bad objects), a file where
its directory should be, a user state dir that is a file — is one line naming the path and what to
do: ``axon undo`` exits 1 without a traceback, and a run proceeds without undo and says so once."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.fakeserver import text_reply, tool_reply


def _state(project: Path) -> Path:
    return project.parent / "home" / ".local" / "state" / "axon"


def _garbage_head(store: Path) -> None:
    (store / "git" / "HEAD").write_text("garbage\n")


def _bad_objects(store: Path) -> None:
    for p in (store / "git" / "objects").rglob("*"):
        if p.is_file():
            os.chmod(p, 0o644)
            p.write_bytes(b"not a git object")


def _file_for_the_store(store: Path) -> None:
    shutil.rmtree(store.parent)
    store.parent.write_text("a file where the snapshot directory should be\n")


def _file_for_the_state_dir(store: Path) -> None:
    state = store.parent.parent
    shutil.rmtree(state)
    state.write_text("a file where axon's state directory should be\n")


@pytest.mark.parametrize("breakage", [_garbage_head, _bad_objects, _file_for_the_store, _file_for_the_state_dir])
def test_a_broken_snapshot_store_is_one_line_and_the_run_goes_on(server, run_axon, project,
                                                                 breakage: Callable[[Path], None]):
    server.add(tool_reply(("write_file", {"path": "a.txt", "content": "one\n"})), text_reply("ok"))
    r = run_axon("run", "--yes", "make a")
    assert r.code == 0, r.stderr
    store = next((_state(project) / "snapshots").iterdir())
    breakage(store)

    server.add(tool_reply(("write_file", {"path": "b.txt", "content": "two\n"})),
               tool_reply(("write_file", {"path": "c.txt", "content": "three\n"})), text_reply("ok"))
    r = run_axon("run", "--yes", "make b and c")
    assert r.code == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert (project / "b.txt").read_text() == "two\n" and (project / "c.txt").read_text() == "three\n"
    said = [line for line in r.stderr.splitlines() if "cannot be undone" in line]
    assert len(said) == 1 and str(store) in said[0]      # once, naming the store

    r = run_axon("undo")
    assert r.code == 1
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(store) in lines[0] and "move it aside" in lines[0]
    assert (project / "a.txt").read_text() == "one\n"    # nothing half undone
    assert run_axon("undo", "--list").code == 0


@pytest.mark.parametrize("where", [".axon", ".axon/sessions"])
def test_a_file_where_the_project_state_dir_should_be_leaves_the_run_working(server, run_axon, project: Path,
                                                                             where: str) -> None:
    (project / where).parent.mkdir(exist_ok=True)
    (project / where).write_text("not a directory\n")
    server.add(tool_reply(("write_file", {"path": "b.txt", "content": "two\n"})), text_reply("ok"))
    r = run_axon("run", "--yes", "make b")
    assert r.code == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert (project / "b.txt").read_text() == "two\n"
    said = [line for line in r.stderr.splitlines() if "transcript" in line]
    assert len(said) == 1 and str(project / where) in said[0]
    assert (project / where).read_text() == "not a directory\n"      # the user's file is left as it was
