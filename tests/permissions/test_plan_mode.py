"""Plan mode on the ladder: it sits between read-only and default, decides every call that would
change something as read-only does (with a refusal that tells the model to plan instead), runs the
todo list, asks before a web fetch; an unknown mode never ranks as plan; it is accepted wherever a
mode is; a project's plan narrows (applies untrusted) unless the user's own mode is read-only."""

from __future__ import annotations

from pathlib import Path

import pytest

from axon_cli.kernel.errors import ConfigError
from axon_cli.policy.decide import decide
from axon_cli.policy.modes import MODES, changes_nothing, rank, wider_modes
from axon_cli.policy.rules import RuleSet, rules_from_data
from axon_cli.settings.config import Settings
from axon_cli.settings.trust.widening import PERMISSIONS, Baseline, find


def test_plan_sits_between_read_only_and_default() -> None:
    assert MODES[:3] == ("read-only", "plan", "default")
    assert changes_nothing("plan") and changes_nothing("read-only") and not changes_nothing("default")


@pytest.mark.parametrize("unknown", ["", "nonsense", "Plan", "read_only"])
def test_an_unknown_mode_ranks_as_default_never_as_plan(unknown: str) -> None:
    assert rank(unknown) == rank("default") != rank("plan")
    assert wider_modes(unknown) == wider_modes("default") == ("accept-edits", "auto", "yolo")
    assert "default" in wider_modes("plan")


def _decide(tool: str, category: str, tool_input: dict[str, str], read_only: bool, mode: str, root: Path,
            rules: RuleSet | None = None) -> tuple[str, str, str]:
    paths = [tool_input["path"]] if "path" in tool_input else []
    d = decide(tool, category, tool_input, read_only, False, mode, rules or RuleSet(), root, root.parent,
               paths=paths)
    return d.behavior, d.reason, d.decided_by


@pytest.mark.parametrize("tool,category,tool_input", [
    ("write_file", "edit", {"path": "new.txt"}),
    ("edit_file", "edit", {"path": "a.txt"}),
    ("bash", "shell", {"command": "rm a.txt"}),
    ("bash", "shell", {"command": "echo x > a.txt"}),
    ("bash", "shell", {"command": "python3 -c 'open(\"g\",\"w\").write(1)'"}),
    ("bash", "shell", {"command": "sed -i s/x/y/ a.txt"}),
    ("bash", "shell", {"command": "echo $("}),               # unparseable
    ("memory_save", "other", {"text": "x"}),
])
def test_plan_refuses_every_change_and_says_to_plan_instead(tool: str, category: str, tool_input: dict[str, str],
                                                             tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x\n")
    behavior, reason, by = _decide(tool, category, tool_input, False, "plan", tmp_path)
    assert (behavior, by) == ("deny", "mode plan")
    assert "plan mode" in reason and "plan" in reason.split("plan mode", 1)[1]
    assert _decide(tool, category, tool_input, False, "read-only", tmp_path)[0] == "deny"


def test_an_allow_rule_does_not_widen_plan(tmp_path: Path) -> None:
    rules = rules_from_data({"allow": ["write_file", "bash(rm *)", "edit_file(*)"]}, "test")
    for tool, category, tool_input in [("write_file", "edit", {"path": "n.txt"}), ("bash", "shell", {"command": "rm a"}),
                                       ("edit_file", "edit", {"path": "a.txt"})]:
        assert _decide(tool, category, tool_input, False, "plan", tmp_path, rules)[0] == "deny", tool


def test_plan_runs_reads_and_the_todo_list_and_asks_before_a_fetch(tmp_path: Path) -> None:
    assert _decide("read_file", "read", {"path": "a.txt"}, True, "plan", tmp_path)[0] == "allow"
    assert _decide("bash", "shell", {"command": "git status"}, False, "plan", tmp_path)[0] == "allow"
    assert _decide("todo_write", "other", {"todos": "[]"}, True, "plan", tmp_path)[0] == "allow"
    assert _decide("web_fetch", "other", {"url": "https://example.com"}, False, "plan", tmp_path)[0] == "ask"
    assert _decide("web_fetch", "other", {"url": "https://example.com"}, False, "read-only", tmp_path)[0] == "deny"


def test_plan_is_a_valid_mode_in_config_and_permission_files() -> None:
    assert Settings(mode="plan").mode == "plan"
    assert rules_from_data({"mode": "plan"}, "perm.toml").mode == "plan"
    with pytest.raises(ConfigError, match="is not one of read-only, plan, default"):
        rules_from_data({"mode": "planning"}, "perm.toml")


def test_a_project_plan_narrows_unless_the_user_is_read_only() -> None:
    assert find(PERMISSIONS, {"mode": "plan"}, Baseline(mode="default")) == []
    assert find(PERMISSIONS, {"mode": "plan"}, Baseline(mode="accept-edits")) == []
    widening = find(PERMISSIONS, {"mode": "plan"}, Baseline(mode="read-only"))
    assert [f.item.content for f in widening] == ["plan"]
    assert [f.item.content for f in find(PERMISSIONS, {"mode": "default"}, Baseline(mode="plan"))] == ["default"]
