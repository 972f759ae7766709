"""Red-team findings in the tools layer: hangs, edits in the wrong place, masking gaps.

Through the real dispatcher and the real built-in tools (and the real bash subprocess).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from axon_cli.kernel.events import AutoApprover
from axon_cli.machinery.masking import Masker
from axon_cli.machinery.sandbox import resolve
from axon_cli.machinery.sandbox.child_env import child_env
from axon_cli.policy.project_policy import load_policy
from axon_cli.settings.config import load_settings
from axon_cli.tools.builtin.bash.bash_tool import bash_spec
from axon_cli.tools.dispatch import Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext


@pytest.fixture
def d(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Dispatcher:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "proj"
    root.mkdir()
    loaded = load_settings(root)
    policy = load_policy(loaded, root)
    policy.set_mode("yolo")
    registry = ToolRegistry.with_builtins(resolve(loaded.settings.sandbox))
    ctx = ToolContext(project_root=root, state_dir=root / ".axon", session_id="rt", settings=loaded.settings,
                      registry=registry)
    return Dispatcher(registry, ctx, policy=policy, approver=AutoApprover())


def call(d: Dispatcher, name: str, **args: Any) -> str:
    return d.dispatch(ToolCall(id="c1", name=name, arguments=json.dumps(args))).content


# -- read_file on a FIFO or a device blocked forever (no timeout, not cancellable) -----------------
@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_read_file_refuses_non_regular_files(d: Dispatcher, kind: str) -> None:
    target = d.ctx.project_root / "special"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    out = call(d, "read_file", path="special")
    assert out.startswith("Error: ") and "not a regular file" in out


# -- a user's EDITOR must not open inside a command (git commit hung until the timeout) ------------
def test_commands_get_a_non_interactive_editor() -> None:
    env = child_env({"EDITOR": "vim", "VISUAL": "vim", "GIT_EDITOR": "nano", "PATH": "/usr/bin"})
    assert env["EDITOR"] == env["VISUAL"] == env["GIT_EDITOR"] == "true"


def test_git_commit_without_message_fails_fast_instead_of_opening_vim(d: Dispatcher,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    d.registry.unregister("bash")      # git init writes .git, which the sandbox keeps read-only:
    d.registry.register(bash_spec(resolve("off")))   # the unsandboxed bash
    monkeypatch.setenv("EDITOR", "vi")
    monkeypatch.setenv("VISUAL", "vi")
    out = d.dispatch(ToolCall(id="c1", name="bash", arguments=json.dumps({
        "command": "git init -q . && git -c user.email=a@b -c user.name=n commit -q --allow-empty",
        "timeout": 20}))).content
    assert "timed out" not in out
    assert "Aborting commit due to empty commit message" in out and out.rstrip().endswith("exit code 1")


# -- edit_file: forgiving layers must not choose a place the model did not identify ----------------
def _edit(d: Dispatcher, text: str, old: str, new: str) -> tuple[str, str]:
    path = d.ctx.project_root / "f.txt"
    path.write_text(text)
    call(d, "read_file", path="f.txt")
    return call(d, "edit_file", path="f.txt", old_string=old, new_string=new), path.read_text()


def test_trailing_whitespace_layer_does_not_match_a_prefix_of_a_longer_token(d: Dispatcher) -> None:
    text = "value = 10\nother = 2\n"
    out, after = _edit(d, text, "value = 1 ", "value = 2 ")
    assert out.startswith("Error: old_string not found")
    assert after == text


def test_whitespace_only_last_line_does_not_eat_the_next_lines_indentation(d: Dispatcher) -> None:
    text = "    x = 1\nreturn x\n"
    out, after = _edit(d, text, "x = 1\n  ", "x = 2\n  ")
    assert out.startswith("Error: old_string not found")
    assert after == text


def test_trailing_whitespace_layer_still_forgives_real_line_ends(d: Dispatcher) -> None:
    out, after = _edit(d, "a = 1   \nb = 2\n", "a = 1\nb = 2", "a = 3\nb = 4")
    assert "matched ignoring" in out and after == "a = 3\nb = 4\n"


def test_tab_width_ambiguity_is_refused(d: Dispatcher) -> None:
    # With tab width 4 the needle matches line 1; with tab width 8 it matches line 3.
    text = "\t\tcall()\nx\n\tcall()\n"
    out, after = _edit(d, text, "        call()", "        done()")
    assert out.startswith("Error: ") and "unique" in out
    assert after == text


def test_tab_layer_still_works_when_every_width_agrees(d: Dispatcher) -> None:
    out, after = _edit(d, "if x:\n\tcall()\n", "if x:\n    call()", "if x:\n    done()")
    assert "matched ignoring" in out and after == "if x:\n\tdone()\n"


# -- masking: quoted secret values with spaces or commas leaked (wholly or in part) -----------------
@pytest.mark.parametrize("line,leak", [
    ('PASSWORD="correct horse battery staple"', "battery"),
    ('client_secret="abc,defghijk"', "defghijk"),
    ("db_password: 'p@ss word 99'", "word 99"),
    ('{"api_key": "ab cd ef gh ij"}', "gh ij"),
])
def test_quoted_secret_values_are_masked_whole(line: str, leak: str) -> None:
    masked = Masker({})(line)
    assert leak not in masked and "[REDACTED]" in masked


def test_quoted_secret_masking_keeps_json_valid() -> None:
    text = json.dumps({"password": "a b, c", "note": "x"})
    assert json.loads(Masker({})(text)) == {"password": "[REDACTED]", "note": "x"}


def test_quoted_secret_through_bash_output(d: Dispatcher) -> None:
    out = call(d, "bash", command="printf 'PASSWORD=\"correct horse battery staple\"\\n'")
    assert "battery" not in out and "[REDACTED]" in out
