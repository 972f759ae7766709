"""``[diagnostics]`` commands in-process: which globs match, what counts as new output, the config
layers adding up, and a project's entries as trust items pinned to the scripts they run."""

from __future__ import annotations

from pathlib import Path

import pytest

from axon_cli.settings.config import load_settings
from axon_cli.settings.trust import FolderTrust
from axon_cli.settings.trust.widening import CONFIG, Baseline, find, keep_trusted
from axon_cli.tools.builtin.files.diag_command import commands_for, introduced


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize(("rel", "expected"), [
    ("app.ts", ["tsc"]), ("src/deep/app.ts", ["tsc"]), ("src/app.py", ["src-only", "any-py"]),
    ("lib/app.py", ["any-py"]), ("app.tsx", []), ("README", []),
])
def test_a_glob_without_a_slash_matches_the_name_one_with_a_slash_the_path(rel, expected):
    table = {"*.ts": "tsc", "src/*.py": "src-only", "*.py": "any-py"}
    assert commands_for(table, rel) == expected


def test_moved_lines_are_not_new_but_a_second_copy_and_a_changed_message_are():
    before = ["notes.txt:2: leftover marker", "app.ts(12,5): error TS2304: Cannot find name 'x'.",
              "  line 7, in f"]
    moved = ["notes.txt:3: leftover marker", "app.ts(14,1): error TS2304: Cannot find name 'x'.",
             "  line 9, in f"]
    assert introduced(before, moved) == []
    twice = [*moved, "notes.txt:9: leftover marker"]
    assert introduced(before, twice) == ["notes.txt:9: leftover marker"]
    other = ["app.ts(14,1): error TS2304: Cannot find name 'y'."]
    assert introduced(before, other) == other
    # numbers that are not positions still tell messages apart
    assert introduced(["expected 2 arguments, got 3"], ["expected 3 arguments, got 2"]) == \
        ["expected 3 arguments, got 2"]


def test_a_project_entry_is_a_trust_item_pinned_to_the_script_it_runs(tmp_path):
    _write(tmp_path / "check.py", "print('ok')\n")
    data = {"diagnostics": {"*.txt": "python3 check.py {file}", "*.md": "touch /tmp/x"}, "diagnostics_timeout": 3.0}
    found = find(CONFIG, data, Baseline(), tmp_path)
    assert [f.item.id for f in found] == ["diagnostics:*.txt", "diagnostics:*.md"]
    assert found[0].item.shows.startswith('diagnostics for "*.txt" runs: python3 check.py {file}')
    assert [rel for rel, _ in found[0].item.pins] == ["check.py"]
    kept, pending = keep_trusted(CONFIG, data, Baseline(), lambda item: item.key == "*.txt")
    assert kept == {"diagnostics": {"*.txt": "python3 check.py {file}"}, "diagnostics_timeout": 3.0}
    assert [p.key for p in pending] == ["*.md"]


def test_user_and_project_entries_add_up_and_the_project_needs_trust(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    root = tmp_path / "proj"
    _write(tmp_path / "conf" / "axon" / "config.toml", '[diagnostics]\n"*.sh" = "shellcheck {file}"\n"*.ts" = "mine"\n')
    _write(root / CONFIG, '[diagnostics]\n"*.ts" = "theirs {file}"\n"*.go" = "go vet"\n')
    untrusted = load_settings(root, env={}, trust=FolderTrust(root))
    assert untrusted.settings.diagnostics == {"*.sh": "shellcheck {file}", "*.ts": "mine"}
    trusted = load_settings(root, env={"AXON_TRUST": "1"})
    assert trusted.settings.diagnostics == {"*.sh": "shellcheck {file}", "*.ts": "theirs {file}", "*.go": "go vet"}


def test_a_trusted_entry_is_pending_again_when_its_script_changes(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    root = tmp_path / "proj"
    _write(root / "check.py", "print('ok')\n")
    _write(root / CONFIG, '[diagnostics]\n"*.txt" = "python3 check.py {file}"\n')
    trust = FolderTrust(root)
    trust.approve(trust.assess())
    assert load_settings(root, env={}, trust=FolderTrust(root)).settings.diagnostics == \
        {"*.txt": "python3 check.py {file}"}
    _write(root / "check.py", "import os; os.system('touch /tmp/x')\n")      # a later `git pull`
    pending = FolderTrust(root).assess().pending
    assert [(p.item.id, p.status) for p in pending] == [("diagnostics:*.txt", "changed")]
    assert load_settings(root, env={}, trust=FolderTrust(root)).settings.diagnostics == {}
