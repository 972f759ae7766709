"""``axon undo`` brings back everything a turn's snapshot covers, byte for byte and mode for mode:
permission bits (0000 included), symlinks as links, empty directories, names that are not UTF-8.

Each test runs the real ``axon run --mode yolo`` against the scripted server (its bash call makes
the change, with and without the bubblewrap sandbox), then the real ``axon undo``, and looks at the
disk. ``test_unreadable_paths_as_a_user`` does the same as an unprivileged user (root reads a 0000
file; a user cannot).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import axon_command
from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import NO_NAMESPACES

SANDBOXES = [pytest.param("off", id="no-sandbox"),
             pytest.param("workspace-write", id="bwrap",
                          marks=pytest.mark.skipif(NO_NAMESPACES is not None, reason=NO_NAMESPACES or ""))]


def _bits(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def _turn_then_undo(server, run_axon, sandbox: str, command: str) -> str:
    """One turn whose bash call runs ``command``, then ``axon undo``; the undo's output."""
    server.add(tool_reply(("bash", {"command": command})), text_reply("done"))
    r = run_axon("run", "change things", "--mode", "yolo", "--sandbox", sandbox)
    assert r.code == 0, r.stderr
    assert server.requests[1].messages[-1]["content"].endswith("exit code 0")
    undone = run_axon("undo")
    assert undone.code == 0 and "Traceback" not in undone.stderr, undone.stderr
    return undone.stdout


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_permission_bits_come_back_exactly(server, run_axon, project: Path, sandbox: str) -> None:
    files = {"f.txt": 0o644, "secret.txt": 0o600, "ro.txt": 0o444, "tool.sh": 0o750, "sticky.txt": 0o1640}
    for name, bits in files.items():
        (project / name).write_bytes(f"{name} content\n".encode())
        os.chmod(project / name, bits)
    (project / "d").mkdir()
    (project / "d" / "in.txt").write_text("in\n")
    os.chmod(project / "d", 0o2750)                              # setgid directory
    os.chmod(project, 0o755)
    out = _turn_then_undo(server, run_axon, sandbox, "chmod 000 f.txt ro.txt && chmod 644 secret.txt && "
                          "chmod 600 tool.sh && chmod 1777 sticky.txt && chmod 700 d && echo new > d/in.txt && "
                          "chmod 711 .")
    for name, bits in files.items():
        assert (_bits(project / name), (project / name).read_bytes()) == (bits, f"{name} content\n".encode())
    assert _bits(project / "d") == 0o2750 and (project / "d" / "in.txt").read_text() == "in\n"
    assert _bits(project) == 0o755
    assert out.splitlines()[1:] == ["  restored ./", "  restored d/", "  restored d/in.txt", "  restored f.txt",
                                    "  restored ro.txt", "  restored secret.txt", "  restored sticky.txt",
                                    "  restored tool.sh"]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_chmod_recursive_000_comes_back(server, run_axon, project: Path, sandbox: str) -> None:
    (project / "d" / "sub" / "empty").mkdir(parents=True)
    (project / "d" / "a.txt").write_bytes(b"a\x00\xff")
    (project / "d" / "sub" / "b.sh").write_text("echo b\n")
    os.chmod(project / "d" / "sub" / "b.sh", 0o755)
    os.chmod(project / "d" / "sub" / "empty", 0o750)
    _turn_then_undo(server, run_axon, sandbox, "chmod -R 000 d")
    assert [_bits(project / p) for p in ("d", "d/sub", "d/sub/empty", "d/a.txt", "d/sub/b.sh")] == \
        [0o755, 0o755, 0o750, 0o644, 0o755]
    assert (project / "d" / "a.txt").read_bytes() == b"a\x00\xff"
    assert (project / "d" / "sub" / "b.sh").read_text() == "echo b\n"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_file_replaced_by_a_symlink_and_links_removed(server, run_axon, project: Path, sandbox: str) -> None:
    (project / "f.txt").write_text("precious\n")
    os.chmod(project / "f.txt", 0o640)
    outside = project.parent / "outside.txt"
    outside.write_text("outside stays as it is\n")
    (project / "out-link").symlink_to(outside)                  # points outside the project
    (project / "dangling").symlink_to("no/such/target")
    (project / "rel-link").symlink_to("f.txt")
    _turn_then_undo(server, run_axon, sandbox, "ln -sf /dev/null f.txt && rm out-link dangling && "
                    "ln -sfn dangling rel-link")
    assert not os.path.islink(project / "f.txt")
    assert (project / "f.txt").read_text() == "precious\n" and _bits(project / "f.txt") == 0o640
    assert os.readlink(project / "out-link") == str(outside)
    assert os.readlink(project / "dangling") == "no/such/target" and not (project / "dangling").exists()
    assert os.readlink(project / "rel-link") == "f.txt"
    assert outside.read_text() == "outside stays as it is\n"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_empty_directories_removed_and_made(server, run_axon, project: Path, sandbox: str) -> None:
    (project / "emptydir").mkdir(mode=0o750)
    os.chmod(project / "emptydir", 0o750)
    (project / "keep").mkdir()
    out = _turn_then_undo(server, run_axon, sandbox, "rmdir emptydir && mkdir newempty && mkdir -p keep/a/b")
    assert (project / "emptydir").is_dir() and _bits(project / "emptydir") == 0o750
    assert not (project / "newempty").exists() and not (project / "keep" / "a").exists()
    assert (project / "keep").is_dir()
    assert out.splitlines()[1:] == ["  restored emptydir/", "  deleted keep/a/ (created in that turn)",
                                    "  deleted keep/a/b/ (created in that turn)",
                                    "  deleted newempty/ (created in that turn)"]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_rm_r_of_a_tree_with_an_empty_dir_and_a_symlink(server, run_axon, project: Path, sandbox: str) -> None:
    tree = project / "tree"
    (tree / "empty").mkdir(parents=True)
    (tree / "sub").mkdir()
    (tree / "sub" / "x.bin").write_bytes(bytes(range(256)))
    (tree / "link").symlink_to("../elsewhere/missing")
    os.chmod(tree / "empty", 0o700)
    os.chmod(tree / "sub" / "x.bin", 0o600)
    os.chmod(tree, 0o751)
    _turn_then_undo(server, run_axon, sandbox, "rm -r tree")
    assert _bits(tree) == 0o751 and (tree / "empty").is_dir() and _bits(tree / "empty") == 0o700
    assert list((tree / "empty").iterdir()) == []
    assert (tree / "sub" / "x.bin").read_bytes() == bytes(range(256)) and _bits(tree / "sub" / "x.bin") == 0o600
    assert os.path.islink(tree / "link") and os.readlink(tree / "link") == "../elsewhere/missing"


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_names_that_are_not_utf8(server, run_axon, project: Path, sandbox: str) -> None:
    cafe, made = os.fsdecode(b"caf\xe9.txt"), os.fsdecode(b"new\xff.txt")
    (project / cafe).write_bytes(b"old \xe9\n")
    server.add(tool_reply(("bash", {"command": "printf 'new' > caf$'\\xe9'.txt && echo x > new$'\\xff'.txt && "
                                               "chmod 600 caf$'\\xe9'.txt"})), text_reply("done"))
    assert run_axon("run", "touch them", "--mode", "yolo", "--sandbox", sandbox).code == 0
    assert (project / cafe).read_bytes() == b"new" and (project / made).exists()
    listed = run_axon("undo", "--list")
    assert listed.code == 0 and "Traceback" not in listed.stderr
    assert "2 file(s): caf\\xe9.txt, new\\xff.txt" in listed.stdout
    r = run_axon("undo")
    assert r.code == 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.splitlines()[1:] == ["  restored caf\\xe9.txt", "  deleted new\\xff.txt (created in that turn)"]
    assert (project / cafe).read_bytes() == b"old \xe9\n" and _bits(project / cafe) == 0o644
    assert not (project / made).exists()
    server.add(text_reply("noted"))                            # the session's note names them escaped
    assert run_axon("run", "--continue", "what now?").code == 0
    assert "restored caf\\xe9.txt" in server.requests[-1].messages[-2]["content"]


@pytest.fixture
def user_project(axon_env: dict[str, str]) -> Iterator[tuple[Path, dict[str, str], list[str]]]:
    """A project, home and command line for running axon as an unprivileged user (nobody, when root)."""
    base = Path(tempfile.mkdtemp(prefix="axon-undo-user-"))
    root, home = base / "proj", base / "home"
    root.mkdir()
    (root / ".git").mkdir()
    home.mkdir()
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: cannot run axon as a user")
        os.chmod(base, 0o755)
        for p in (base, root, root / ".git", home):
            os.chown(p, 65534, 65534)
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    env = {**axon_env, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    yield root, env, prefix
    subprocess.run(["chmod", "-R", "u+rwx", str(base)], check=False)
    shutil.rmtree(base, ignore_errors=True)


def test_unreadable_paths_as_a_user(server, user_project) -> None:
    root, env, prefix = user_project

    def axon(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*prefix, *axon_command(), *args], cwd=root, env=env, capture_output=True, text=True,
                              timeout=60, stdin=subprocess.DEVNULL)

    def setup(script: str) -> None:
        subprocess.run([*prefix, "sh", "-c", script], cwd=root, check=True)

    setup("printf 'one\\n' > f.txt && mkdir -p d/sub e && printf 'a\\n' > d/a.txt && printf 'b\\n' > d/sub/b.txt && "
          "echo e > e/e.txt")
    server.add(tool_reply(("bash", {"command": "printf 'two\\n' > f.txt && chmod 000 f.txt && echo n > new.txt && "
                                               "chmod 000 new.txt && echo c > d/c.txt && echo A > d/a.txt && "
                                               "chmod 000 d/sub d && echo E > e/e.txt && chmod 600 e"})),
               text_reply("done"))
    r = axon("run", "lock it up", "--mode", "yolo", "--sandbox", "off")
    assert r.returncode == 0, r.stderr
    assert _bits(root / "f.txt") == 0 and _bits(root / "d") == 0, r.stdout + r.stderr
    undone = axon("undo")
    assert undone.returncode == 0 and "Traceback" not in undone.stderr, undone.stderr
    check = subprocess.run([*prefix, "sh", "-c", "cat f.txt d/a.txt d/sub/b.txt e/e.txt; ls d; ls new.txt 2>&1"],
                           cwd=root, capture_output=True, text=True)
    assert check.stdout.splitlines()[:6] == ["one", "a", "b", "e", "a.txt", "sub"]
    assert "No such file" in check.stdout
    assert [_bits(root / p) for p in ("f.txt", "d", "d/sub", "d/a.txt", "e")] == [0o644, 0o755, 0o755, 0o644, 0o755]


def test_unlistable_and_unreadable_paths_still_ask_as_a_user(server, user_project) -> None:
    root, env, prefix = user_project
    if NO_NAMESPACES is not None:
        pytest.skip(NO_NAMESPACES)
    subprocess.run([*prefix, "sh", "-c", "mkdir locked && echo data > locked/only-copy.txt && chmod 000 locked && "
                    "echo s > secret.txt && chmod 000 secret.txt"], cwd=root, check=True)
    server.add(tool_reply(("bash", {"command": "rm -rf locked"}), ("bash", {"command": "rm -f secret.txt"})),
               text_reply("ok"))
    r = subprocess.run([*prefix, *axon_command(), "run", "clean", "--output-format", "stream-json"], cwd=root,
                       env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 0, r.stderr
    decisions = [json.loads(line) for line in r.stdout.splitlines() if '"permission_decision"' in line]
    assert [d["decision"] for d in decisions] == ["ask", "ask"]
    assert "locked cannot be listed (Permission denied)" in decisions[0]["reason"]
    assert "secret.txt cannot be read (Permission denied)" in decisions[1]["reason"]
    assert _bits(root / "locked") == 0 and (root / "secret.txt").exists()      # neither command ran


@pytest.mark.parametrize("blob, why", [
    (b"axon-modes 1 0644 0755\nf 0644 ../../etc/passwd\0", "are unreadable (record 1 names a path outside the project)"),
    (None, "are missing from the shadow repository")], ids=["corrupt", "missing"])
def test_a_corrupt_or_missing_modes_blob_still_undoes_content(server, run_axon, project: Path, blob, why) -> None:
    """Content comes back as without modes (the bits stay as the turn left them); one line says why."""
    (project / "a.txt").write_text("a1\n")
    server.add(tool_reply(("bash", {"command": "echo a2 > a.txt && chmod 600 a.txt"})), text_reply("done"))
    assert run_axon("run", "change", "--mode", "yolo", "--sandbox", "off").code == 0
    (turns,) = (project.parent / "home").glob(".local/state/axon/snapshots/*/turns.json")
    oid = "0" * 40
    if blob is not None:
        oid = subprocess.run(["git", "--git-dir", str(turns.parent / "git"), "hash-object", "-w", "--stdin"],
                             input=blob, capture_output=True, check=True).stdout.decode().strip()
    records = json.loads(turns.read_text())
    records[-1]["before_modes"] = oid
    turns.write_text(json.dumps(records))
    r = run_axon("undo")
    assert r.code == 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.splitlines()[1:] == [f"  skipped (file modes): not restored: the file modes of snapshot "
                                         f"{oid[:12]} {why}", "  restored a.txt"]
    assert (project / "a.txt").read_text() == "a1\n" and not (project.parent / "etc").exists()


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_directory_replaced_by_a_symlink_comes_back_and_nothing_is_written_through_it(
        server, run_axon, project: Path, sandbox: str) -> None:
    (project / "d").mkdir()
    (project / "d" / "x.txt").write_text("mine\n")
    elsewhere = project / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "x.txt").write_text("not to be touched\n")
    out = _turn_then_undo(server, run_axon, sandbox, "rm -r d && ln -s elsewhere d")
    assert out.splitlines()[1:] == ["  deleted d (created in that turn)", "  restored d/x.txt"]
    assert not os.path.islink(project / "d") and (project / "d" / "x.txt").read_text() == "mine\n"
    assert (elsewhere / "x.txt").read_text() == "not to be touched\n"
