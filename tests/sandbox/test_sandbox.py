"""``--sandbox`` for the ``bash`` tool, through dispatch with ``settings.sandbox`` set (real bwrap)."""

from __future__ import annotations

import json
import os
import socket
import sys
import time
import uuid
from pathlib import Path

import pytest

from axon_cli.kernel.errors import ConfigError
from axon_cli.machinery import sandbox
from axon_cli.settings.config import Settings
from axon_cli.tools.builtin.bash.bash_tool import bash_spec
from axon_cli.tools.dispatch import CallResult, Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext


def _namespaces_unavailable() -> str | None:
    """Why the sandbox cannot be built here (bwrap missing, or no namespaces), or None. CI installs bwrap."""
    bwrap = sandbox.find_bwrap()
    if bwrap is None:
        return "bubblewrap (bwrap) is not installed here: apt install bubblewrap (CI installs it)"
    from axon_cli.machinery.sandbox.probe import _run_probe

    reason = _run_probe(bwrap)       # uncached: collection runs before the fixture isolating the state dir
    return f"bwrap cannot create namespaces on this machine: {reason}" if reason else None


NO_NAMESPACES = _namespaces_unavailable()
needs_namespaces = pytest.mark.skipif(NO_NAMESPACES is not None, reason=NO_NAMESPACES or "")


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / ".axon").mkdir()
    (root / ".axon" / "permissions.toml").write_text('allow = []\n')
    return root


def dispatcher(root: Path, mode: str) -> Dispatcher:
    ctx = ToolContext(project_root=root, state_dir=root / ".axon", session_id=f"s-{mode}",
                      settings=Settings(bash_timeout=20, sandbox=mode))  # type: ignore[arg-type]
    return Dispatcher(ToolRegistry.with_builtins(sandbox.resolve(mode)), ctx)


def bash(d: Dispatcher, command: str, **kw: object) -> CallResult:
    return d.dispatch(ToolCall(f"call_{uuid.uuid4().hex[:8]}", "bash", json.dumps({"command": command, **kw})))


@needs_namespaces
def test_workspace_write_writes_inside_the_project(root: Path) -> None:
    r = bash(dispatcher(root, "workspace-write"), "mkdir -p src && echo hi > src/a.txt && cat src/a.txt")
    assert r.ok and r.content == "hi\nexit code 0"
    assert (root / "src" / "a.txt").read_text() == "hi\n"


@needs_namespaces
def test_workspace_write_cannot_write_outside(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    r = bash(dispatcher(root, "workspace-write"), f"echo x > {outside}/f")
    assert r.content.endswith("exit code 1") and not (outside / "f").exists()


@needs_namespaces
def test_home_stays_visible_but_read_only(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".profile").write_text("kept\n")
    monkeypatch.setenv("HOME", str(home))
    r = bash(dispatcher(root, "workspace-write"), 'cat "$HOME/.profile"; echo x > "$HOME/new"')
    assert r.content.startswith("kept\n") and "Read-only file system" in r.content
    assert r.content.endswith("exit code 1\n(sandbox: workspace-write: only the project (not .git or .axon) "
                              "and /tmp are writable)")
    assert not (home / "new").exists()


@needs_namespaces
def test_git_and_axon_stay_read_only(root: Path) -> None:
    d = dispatcher(root, "workspace-write")
    r = bash(d, "echo evil > .git/HEAD")
    assert "Read-only file system" in r.content and "exit code 1" in r.content
    r = bash(d, "echo 'allow = [\"bash\"]' > .axon/permissions.toml; touch .axon/new")
    assert r.content.count("Read-only file system") == 2
    assert (root / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n"
    assert (root / ".axon" / "permissions.toml").read_text() == "allow = []\n"
    assert not (root / ".axon" / "new").exists()


@needs_namespaces
def test_tmp_is_private_and_writable(root: Path) -> None:
    name = f"/tmp/axon-sbx-{uuid.uuid4().hex}"
    r = bash(dispatcher(root, "workspace-write"), f"echo t > {name} && cat {name}")
    assert r.content == "t\nexit code 0"
    assert not os.path.exists(name)


def _connect_command(port: int) -> str:
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=30); print('connected')"
    return f'{sys.executable} -c "{code}"'


@needs_namespaces
def test_no_network_to_a_local_listener(root: Path) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        port = listener.getsockname()[1]
        r = bash(dispatcher(root, "workspace-write"), _connect_command(port))
        assert "ConnectionRefusedError" in r.content and "connected" not in r.content
        assert r.content.endswith("exit code 1")
        control = bash(dispatcher(root, "off"), _connect_command(port))   # the same call unsandboxed
        assert control.content == "connected\nexit code 0"


@needs_namespaces
def test_read_only_cannot_write_in_the_project(root: Path) -> None:
    (root / "a.txt").write_text("old\n")
    r = bash(dispatcher(root, "read-only"), "cat a.txt; echo new > a.txt; touch b.txt")
    assert r.content.startswith("old\n") and r.content.count("Read-only file system") == 2
    assert r.content.endswith("exit code 1\n(sandbox: read-only: only /tmp is writable)")
    assert (root / "a.txt").read_text() == "old\n" and not (root / "b.txt").exists()


def test_off_is_unchanged(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    r = bash(dispatcher(root, "off"), f"echo x > {outside}/f; echo y > .git/x; echo ok")
    assert r.content == "ok\nexit code 0"
    assert (outside / "f").read_text() == "x\n" and (root / ".git" / "x").read_text() == "y\n"


def _live_with(token: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read()
            with open(f"/proc/{entry}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if token.encode() in cmdline and state != b"Z":
            found.append(int(entry))
    return found


def _wait_none_alive(token: str, deadline: float = 30.0) -> list[int]:
    end = time.monotonic() + deadline
    while (left := _live_with(token)) and time.monotonic() < end:
        time.sleep(0.02)
    return left


@pytest.mark.slow
@needs_namespaces
@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="finding processes needs /proc")
def test_timeout_kills_everything_under_bwrap(root: Path) -> None:
    secs = f"100.{uuid.uuid4().int % 10**6:06d}"     # a unique argument to find the processes by
    d = dispatcher(root, "workspace-write")
    r = bash(d, f"sleep {secs} & sleep {secs} & setsid env -i sleep {secs} & echo started; wait", timeout=3)
    assert r.content == "started\ntimed out after 3 s, process group killed" and not r.ok
    assert _wait_none_alive(secs) == []
    r = bash(d, f"setsid env -i sleep {secs} >/dev/null 2>&1 & echo bg")   # escapes the group and marker
    assert r.content == "bg\nexit code 0"
    assert _wait_none_alive(secs) == []


def test_bash_description_names_the_sandbox() -> None:
    def bash_description(mode: str) -> str:
        return bash_spec(sandbox.SandboxStatus(mode, mode, "")).description

    original = ToolRegistry.with_builtins().get("bash")
    assert original is not None and bash_description("off") == original.description
    assert bash_description("read-only").endswith("cannot write files anywhere except a private /tmp, and "
                                                  "have no network access. Credential files (~/.ssh, ~/.aws, "
                                                  ".env, *.pem, ...) read as empty.")
    assert "only inside the project (not .git or .axon)" in bash_description("workspace-write")
    assert original.description == ToolRegistry.with_builtins().get("bash").description  # type: ignore[union-attr]


def test_wrap_command_protects_git_and_axon_only_when_writable(root: Path) -> None:
    real = os.path.realpath(root)
    argv = sandbox.wrap_command(["bash", "-c", "true"], "workspace-write", root, bwrap="/x/bwrap")
    assert argv[0] == "/x/bwrap" and argv[-4:] == ["--", "bash", "-c", "true"]
    assert ["--bind", real, real] == argv[argv.index("--bind"):argv.index("--bind") + 3]
    assert f"{real}/.git" in argv and f"{real}/.axon" in argv and "--unshare-net" in argv
    ro = sandbox.wrap_command(["true"], "read-only", root, bwrap="/x/bwrap")
    assert "--bind" not in ro and f"{real}/.git" not in ro
    assert sandbox.wrap_command(["true"], "off", root) == ["true"]


def test_check_available_without_bwrap_on_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    sandbox.check_available("off")
    with pytest.raises(ConfigError) as err:
        sandbox.check_available("read-only")
    assert str(err.value) == "sandbox 'read-only' needs bubblewrap: apt install bubblewrap (or use --sandbox off)"
    started = sandbox.SandboxStatus("workspace-write", "workspace-write", "bubblewrap worked at start-up")
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s-gone", settings=Settings())
    r = bash(Dispatcher(ToolRegistry.with_builtins(started), ctx), "echo never")   # never silently unsandboxed
    assert not r.ok and "needs bubblewrap" in r.content and "never" not in r.content


@needs_namespaces
def test_tools_installed_under_tmp_stay_runnable(root: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # A virtualenv (or any install) under /tmp, reached through PATH, must keep working inside the
    # private /tmp — CI and many users keep their venv there.
    install = tmp_path / "venv"
    (install / "bin").mkdir(parents=True)
    (install / "lib").mkdir()
    (install / "lib" / "data.txt").write_text("from the install\n")
    tool = install / "bin" / "mytool"
    tool.write_text(f"#!/bin/sh\ncat {install}/lib/data.txt\n")
    tool.chmod(0o755)
    (tmp_path / "secret-elsewhere.txt").write_text("other files in /tmp stay hidden\n")
    monkeypatch.setenv("PATH", f"{install / 'bin'}{os.pathsep}{os.environ['PATH']}")
    for mode in ("read-only", "workspace-write"):
        result = bash(dispatcher(root, mode), f"mytool; cat {tmp_path / 'secret-elsewhere.txt'}")
        assert "from the install" in result.content, result.content
        assert "other files in /tmp stay hidden" not in result.content
        assert "No such file or directory" in result.content


def test_the_probe_runs_once_per_boot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    probe_module = importlib.import_module("axon_cli.machinery.sandbox.probe")

    runs = tmp_path / "runs"
    fake = tmp_path / "bwrap"
    fake.write_text(f"#!/bin/sh\necho run >> {runs}\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    boot = tmp_path / "boot_id"
    boot.write_text("boot-1\n")
    monkeypatch.setattr(probe_module, "BOOT_ID", str(boot))
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")

    def fresh_process_probe() -> str | None:
        probe_module.probe_failure.cache_clear()            # a new axon process: only the file cache is left
        return probe_module.probe_failure(str(fake))

    assert fresh_process_probe() == "bwrap: No permissions to create new namespace"
    assert fresh_process_probe() == "bwrap: No permissions to create new namespace"
    assert runs.read_text().count("run") == 1
    status = sandbox.resolve("auto")
    assert (status.mode, status.fell_back) == ("off", True)
    assert status.reason == "bwrap cannot create namespaces here: bwrap: No permissions to create new namespace"
    with pytest.raises(ConfigError, match="sandbox 'workspace-write' cannot start: bwrap failed here"):
        sandbox.resolve("workspace-write")
    boot.write_text("boot-2\n")                     # a reboot probes again
    fresh_process_probe()
    assert runs.read_text().count("run") == 2
    probe_module.probe_failure.cache_clear()


def test_a_mount_point_left_by_a_killed_axon_is_swept(tmp_path: Path) -> None:
    import subprocess

    from axon_cli.machinery.sandbox import mountpoints

    placeholder = tmp_path / "proj" / ".git"
    placeholder.parent.mkdir()
    with mountpoints.held([str(placeholder)]) as made:
        assert made == [str(placeholder)] and placeholder.is_dir()
    assert not placeholder.exists()                # released: nothing left behind
    gone = subprocess.Popen(["true"])
    gone.wait()
    placeholder.mkdir()                             # what an axon killed mid-command leaves
    marker = mountpoints._marker_dir(str(placeholder))
    marker.mkdir(parents=True)
    (marker / "path").write_text(str(placeholder))
    (marker / str(gone.pid)).touch()
    mountpoints.sweep()
    assert not placeholder.exists() and not marker.exists()
    real = tmp_path / "proj" / "real"
    real.mkdir()
    with mountpoints.held([str(real)]) as made:    # an existing directory is never a mount point of ours
        assert made == []
    assert real.is_dir()


@needs_namespaces
def test_sandbox_hide_and_sensitive_files_at_any_depth(root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / ".config" / "op").mkdir(parents=True)
    (home / ".config" / "op" / "token").write_text("op-secret\n")
    monkeypatch.setenv("HOME", str(home))
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / ".env.production").write_text("deep-secret\n")
    (root / "a" / "b" / "server.key").write_text("key-secret\n")
    (root / "app.sqlite").write_text("db-secret\n")
    (root / "notes.txt").write_text("visible\n")
    ctx = ToolContext(project_root=root, state_dir=root / ".axon", session_id="s-hide",
                      settings=Settings(bash_timeout=20, sandbox="workspace-write",
                                        sandbox_hide=["~/.config/op", "*.sqlite"]))
    d = Dispatcher(ToolRegistry.with_builtins(sandbox.resolve("workspace-write")), ctx)
    r = bash(d, "cat a/b/.env.production a/b/server.key app.sqlite ~/.config/op/token notes.txt; "
                "echo x > a/b/server.key")
    for secret in ("deep-secret", "key-secret", "db-secret", "op-secret"):
        assert secret not in r.content, r.content
    assert "visible" in r.content and "Read-only file system" in r.content
    assert (root / "a" / "b" / "server.key").read_text() == "key-secret\n"


def test_the_note_and_the_argument_only_where_the_sandbox_can_be_left() -> None:
    failed = "touch: cannot touch '/home/u/x': Read-only file system"
    assert sandbox.explain(failed, "workspace-write") == (
        "(sandbox: workspace-write: only the project (not .git or .axon) and /tmp are writable)")
    assert sandbox.explain(failed, "workspace-write", may_leave=True) == (
        "(sandbox: workspace-write: only the project (not .git or .axon) and /tmp are writable; to run it outside "
        "the sandbox, call bash again with outside_sandbox: true (the user is asked))")
    assert sandbox.explain("curl: (6) Could not resolve host: x", "workspace-write", may_leave=True).startswith(
        "(sandbox: workspace-write: no network access; to run it outside the sandbox")
    assert sandbox.explain(failed, "off", may_leave=True) is None
    plain = bash_spec(sandbox.SandboxStatus("workspace-write", "workspace-write", ""))
    leaving = bash_spec(sandbox.SandboxStatus("auto", "workspace-write", ""))
    assert "outside_sandbox" not in plain.json_schema()["properties"] and "outside_sandbox" not in plain.description
    assert leaving.json_schema()["properties"]["outside_sandbox"] == {"type": "boolean"}
    assert leaving.description.endswith("Set outside_sandbox: true to run a command the sandbox blocks (network, "
                                        "git commit, writes outside the project) outside it; the user is asked first.")
    assert sandbox.SandboxStatus("auto", "workspace-write", "").leavable
    assert not sandbox.SandboxStatus("auto", "off", "").leavable
    assert not sandbox.SandboxStatus("workspace-write", "workspace-write", "").leavable
