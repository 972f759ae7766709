"""Snapshots and undo through the real agent loop, dispatch, file tools and bash (scripted server); the
modes blob's loader against corrupt input, and turn records that would reach git's command line."""

from __future__ import annotations

import json
import os
import stat

import pytest

from axon_cli.kernel.events import AutoApprover
from axon_cli.machinery.snapshots import ProjectSnapshots, undo_turns
from axon_cli.session.runtime.opening import open_session
from axon_cli.settings.config import load_settings
from tests.conftest import TEST_KEY
from tests.fakeserver import text_reply, tool_reply


@pytest.fixture
def loaded(project, server, monkeypatch):
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))
    return load_settings(project, flags={"base_url": server.url, "api_key": TEST_KEY, "model": "test-model",
                                         "max_attempts": 1, "sandbox": "off"}, env={})


def _open(loaded, project, **kw):
    return open_session(loaded, project, AutoApprover(), **kw)


def _edit(path: str, old: str, new: str):
    return tool_reply(("edit_file", {"path": path, "old_string": old, "new_string": new}))


def _bash(command: str):
    return tool_reply(("bash", {"command": command}))


def _run(loaded, project, *tasks: str) -> list[str]:
    rt = _open(loaded, project)
    try:
        for task in tasks:
            assert rt.agent.run(task).stop_reason == "final"
        return rt.undo()
    finally:
        rt.close()


def test_undo_restores_a_file_edited_twice_in_one_turn(loaded, project, server):
    (project / "a.txt").write_text("one\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})), _edit("a.txt", "one", "two"),
               _edit("a.txt", "two", "three"), tool_reply(("write_file", {"path": "new.txt", "content": "hi\n"})),
               text_reply("done"))
    rt = _open(loaded, project)
    try:
        assert rt.agent.run("change a").stop_reason == "final"
        assert (project / "a.txt").read_text() == "three\n" and (project / "new.txt").exists()
        lines = rt.undo()
        assert "undid your changes" in rt.agent.messages[-1]["content"]
        assert rt.ctx.file_state.get(project / "a.txt") is None     # edit_file must read it again
    finally:
        rt.close()
    assert (project / "a.txt").read_text() == "one\n"
    assert not (project / "new.txt").exists()
    assert lines == ["undo of turn 1:", "  restored a.txt", "  deleted new.txt (created in that turn)"]


def test_undo_puts_back_what_bash_did(loaded, project, server):
    (project / "a.txt").write_text("1\n")
    (project / "b.txt").write_text("1\n")
    (project / "run.sh").write_text("echo hi\n")
    (project / "link").symlink_to("a.txt")
    server.add(_bash("rm a.txt; echo x > new.txt; sed -i s/1/2/ b.txt; chmod +x run.sh; mkdir -p out/deep && "
                     "echo o > out/deep/o.txt; ln -sfn b.txt link"), text_reply("done"))
    lines = _run(loaded, project, "shell things")
    assert (project / "a.txt").read_text() == "1\n" and (project / "b.txt").read_text() == "1\n"
    assert not (project / "new.txt").exists() and not (project / "out").exists()   # created dirs pruned
    assert not os.stat(project / "run.sh").st_mode & stat.S_IXUSR
    assert os.readlink(project / "link") == "a.txt"
    assert lines == ["undo of turn 1:", "  restored a.txt", "  restored b.txt", "  restored link",
                     "  deleted new.txt (created in that turn)", "  deleted out/deep/o.txt (created in that turn)",
                     "  restored run.sh"]


def test_a_file_changed_since_by_someone_else_is_reported_not_overwritten(loaded, project, server):
    (project / "a.txt").write_text("a1\n")
    (project / "b.txt").write_text("b1\n")
    server.add(_bash("sed -i s/a1/a2/ a.txt && sed -i s/b1/b2/ b.txt"), text_reply("done"))
    rt = _open(loaded, project)
    try:
        rt.agent.run("change both")
        (project / "b.txt").write_text("the user's own change\n")
        lines = rt.undo()
    finally:
        rt.close()
    assert (project / "a.txt").read_text() == "a1\n"
    assert (project / "b.txt").read_text() == "the user's own change\n"
    assert lines[1:] == ["  restored a.txt", "  skipped b.txt: changed after that turn (left as it is)"]


def test_undo_after_resume_walks_back_turn_by_turn(loaded, project, server):
    (project / "a.txt").write_text("v0\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})), _edit("a.txt", "v0", "v1"), text_reply("t1"),
               _bash("echo v2 > a.txt"), text_reply("t2"), text_reply("t3 changes nothing"))
    rt = _open(loaded, project)
    try:
        for task in ("first", "second", "third"):
            rt.agent.run(task)
    finally:
        rt.close()
    assert (project / "a.txt").read_text() == "v2\n"
    rt2 = _open(loaded, project, cont=True)
    try:
        assert rt2.session_id == rt.session_id
        assert rt2.undo()[:2] == ["undo of turn 2:", "  restored a.txt"]
        assert (project / "a.txt").read_text() == "v1\n"
        assert rt2.undo()[:2] == ["undo of turn 1:", "  restored a.txt"]
        assert (project / "a.txt").read_text() == "v0\n"
        assert rt2.undo()[0].startswith("nothing to undo")
        assert "undid your changes" in rt2.agent.messages[-1]["content"]
    finally:
        rt2.close()


def test_undo_n_turns_at_once(loaded, project, server):
    server.add(_bash("echo 1 > f.txt"), text_reply("t1"), _bash("echo 2 > f.txt; echo g > g.txt"), text_reply("t2"))
    rt = _open(loaded, project)
    try:
        rt.agent.run("one")
        rt.agent.run("two")
        lines = rt.undo(2)
    finally:
        rt.close()
    assert lines == ["undo of turn 2:", "  restored f.txt", "  deleted g.txt (created in that turn)",
                     "undo of turn 1:", "  deleted f.txt (created in that turn)"]
    assert not (project / "f.txt").exists() and not (project / "g.txt").exists()


def test_a_turn_that_changed_nothing_is_not_an_undo_step(loaded, project, server):
    (project / "a.txt").write_text("same\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})), _edit("a.txt", "missing text", "x"),
               _bash("touch -c nothing.txt"), text_reply("ok"))
    assert _run(loaded, project, "try")[0].startswith("nothing to undo")
    assert (project / "a.txt").read_text() == "same\n"


def test_ignored_files_are_snapshotted_but_regenerable_trees_and_axon_state_are_not(loaded, project, server):
    (project / ".gitignore").write_text("build/\n*.log\n")
    (project / "build").mkdir()
    (project / "build" / "out.bin").write_text("old build\n")
    (project / "old.log").write_text("old log\n")
    (project / "keep.txt").write_text("keep\n")
    server.add(_bash("echo new > build/out.bin; echo log > x.log; echo changed > keep.txt; rm old.log"),
               text_reply("ok"))
    lines = _run(loaded, project, "build")
    assert lines == ["undo of turn 1:", "  restored keep.txt", "  restored old.log",
                     "  deleted x.log (created in that turn)"]
    assert (project / "build" / "out.bin").read_text() == "new\n"      # regenerable: neither saved nor touched
    assert (project / "old.log").read_text() == "old log\n" and not (project / "x.log").exists()
    store = ProjectSnapshots(project)
    files = store.repo.git("ls-tree", "-r", "--name-only", store.records()[-1]["before"]).decode().split()
    assert ".axon/.gitignore" not in files and "keep.txt" in files and ".gitignore" in files
    assert "old.log" in files and "build/out.bin" not in files


def test_a_project_that_is_not_a_git_repository(loaded, tmp_path, server, monkeypatch):
    plain = tmp_path / "plain"
    (plain / ".axon").mkdir(parents=True)
    (plain / "a.txt").write_text("a\n")
    monkeypatch.chdir(plain)
    server.add(_bash("rm a.txt && echo b > b.txt"), text_reply("ok"))
    assert _run(loaded, plain, "go") == ["undo of turn 1:", "  restored a.txt", "  deleted b.txt (created in that turn)"]
    assert (plain / "a.txt").read_text() == "a\n" and not (plain / ".git").exists()


def test_size_caps_leave_files_out_and_coverage_says_why(project):
    (project / ".gitignore").write_text("data/\n")
    (project / "data").mkdir()
    (project / "data" / "d.csv").write_text("1,2\n")
    (project / "small.txt").write_text("s\n")
    (project / "big.bin").write_bytes(b"x" * 3 * 1024 * 1024)
    (project / "m1.bin").write_bytes(b"1" * 1024 * 1024)
    (project / "m2.bin").write_bytes(b"2" * 1024 * 1024)
    store = ProjectSnapshots(project, max_file_mb=2, max_new_mb=1.5)
    with store.locked():
        snap = store.take()
    assert snap.skipped == {"big.bin": "is over the snapshot size cap (2 MB)",
                            "m2.bin": "was left out of the snapshot (its budget of 1.5 MB was used up)"}
    from axon_cli.machinery.snapshots.coverage import uncovered

    names = ("small.txt", "m1.bin", "m2.bin", "big.bin", "data", "data/d.csv", "nope.txt", ".")
    with store.locked():
        missing = uncovered(store.repo, snap.skipped, [str(project / p) for p in names])
    assert missing == {str(project / "big.bin"): "is over the snapshot size cap (2 MB)",    # data/ is held
                       str(project / "m2.bin"): snap.skipped["m2.bin"],
                       str(project / "."): "holds big.bin, which is over the snapshot size cap (2 MB)"}
    with store.locked():
        again = store.take()                    # the next snapshot takes what the budget left out
    assert again.skipped == {"big.bin": "is over the snapshot size cap (2 MB)"}



def _modes_sample():
    from axon_cli.machinery.snapshots.permission_bits import Modes, Stamp

    return Modes(0o664, 0o775, files={os.fsdecode(b"caf\xe9.txt"): 0o600, "bin/run": 0o4755},
                 dirs={"bin": 0o2750, "empty dir": 0o700, "locked": 0o000}, locked={"locked"},
                 unreadable={"secret": Stamp(0o000, 12, -5_000_000_000)}, left_out={"node_modules"})


def test_modes_round_trip_names_that_are_not_utf8_and_every_bit():
    from axon_cli.machinery.snapshots.permission_bits import parse

    sample = _modes_sample()
    data = sample.encode()
    assert b"caf\xe9.txt" in data
    assert parse(data, "ab" * 20) == sample


@pytest.mark.parametrize("data, why", [
    (b"", "not a modes file"), (b"axon-modes 2 0644 0755\n", "not a modes file"),
    (b"axon-modes 1 0644 0755", "not a modes file"), (b"axon-modes 1 0644 9755\n", "four octal digits"),
    (b"axon-modes 1 0644 0755\nd 0755 a", "cut short"), (b"axon-modes 1 0644 0755\nx 0755 a\0", "record 1"),
    (b"axon-modes 1 0644 0755\nd 0755\0", "record 1"), (b"axon-modes 1 0644 0755\nd 755 a\0", "four octal"),
    (b"axon-modes 1 0644 0755\nf 0644 ../escape\0", "outside the project"),
    (b"axon-modes 1 0644 0755\nf 0644 /etc/passwd\0", "outside the project"),
    (b"axon-modes 1 0644 0755\nd 0755 a\0d 0755 a//b\0", "record 2 names a path outside"),
    (b"axon-modes 1 0644 0755\nu 0000 x 1 f\0", "record 1"), (b"axon-modes 1 0644 0755\nu 0000 1 1e9 f\0", "record 1"),
    (b"axon-modes 1 0644 0755\nl \0", "outside the project"), (b"axon-modes 1 0644 0755\no ../x\0", "outside"), (b"\xff\xfe\0\0garbage", "not a modes file"),
])
def test_a_corrupt_modes_blob_is_one_clear_error(data, why):
    from axon_cli.machinery.snapshots.permission_bits import ModesError, parse

    with pytest.raises(ModesError) as e:
        parse(data, "0123456789abcdef" * 2 + "01234567")
    message = str(e.value)
    assert "\n" not in message and message.startswith("the file modes of snapshot 0123456789ab are unreadable (")
    assert why in message


def test_mutated_modes_blobs_never_raise_anything_else():
    import random

    from axon_cli.machinery.snapshots.permission_bits import ModesError, parse

    data = bytearray(_modes_sample().encode())
    rng = random.Random(7)
    for _ in range(3000):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(mutated))
            choice = rng.random()
            if choice < 0.4:
                mutated[i] = rng.randrange(256)
            elif choice < 0.7:
                del mutated[i]
            else:
                mutated.insert(i, rng.choice(b" \0\n/.0123456789dflu-"))
        try:
            parse(bytes(mutated), "f" * 40)
        except ModesError as e:
            assert "\n" not in str(e)


def test_hostile_turn_records_never_reach_git(project):
    (project / "a.txt").write_text("a\n")
    store = ProjectSnapshots(project)
    with store.locked():
        record, _snap = store.start_turn("s1", 1, "go")
    (project / "a.txt").write_text("b\n")
    with store.locked():
        store.finish_turn(record["id"])
    canary = project.parent / "canary"
    good = store.records()[0]
    hostile = [{**good, "before": f"--output={canary}"}, {**good, "id": "x\nupdate refs/heads/evil HEAD"},
               {**good, "after_modes": f"--output={canary}"}, {**good, "files": [1, 2]}, {**good, "turn": "1"}, 7]
    (store.dir / "turns.json").write_text(json.dumps(hostile))
    assert store.records() == []
    assert undo_turns(store) == []
    assert not canary.exists() and (project / "a.txt").read_text() == "b\n"
