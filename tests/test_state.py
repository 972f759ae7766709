"""The .axon state directory and atomic writes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from axon_cli.kernel.state import atomic_write, ensure_state_dir


def test_new_file_gets_umask_permissions_not_mkstemp_0600(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        target = tmp_path / "new.toml"
        atomic_write(target, b"x = 1\n")
        assert stat.S_IMODE(target.stat().st_mode) == 0o644
    finally:
        os.umask(old)


def test_existing_mode_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "script.sh"
    target.write_text("old")
    target.chmod(0o750)
    atomic_write(target, b"new")
    assert target.read_bytes() == b"new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o750
    assert [p.name for p in tmp_path.iterdir() if p.name != "xdg-state"] == ["script.sh"], "no temp file left behind"


def test_state_dir_gitignore_created_once(tmp_path: Path) -> None:
    state = ensure_state_dir(tmp_path / ".axon")
    ignore = state / ".gitignore"
    assert "!/permissions.toml" in ignore.read_text()
    ignore.write_text("custom\n")
    ensure_state_dir(state)
    assert ignore.read_text() == "custom\n"
