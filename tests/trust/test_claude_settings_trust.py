"""Claude Code's `.claude/settings.json` hooks are trust items pinned to the script they run
(`$CLAUDE_PROJECT_DIR` names the project), so an edited script makes the hook pending again."""

from __future__ import annotations

import json
from pathlib import Path

from axon_cli.settings.trust.folder import read_source
from axon_cli.settings.trust.widening import CLAUDE_SETTINGS, Baseline, find


def _items(root: Path) -> list:
    return [f.item for f in find(CLAUDE_SETTINGS, read_source(root, CLAUDE_SETTINGS), Baseline(), root)]


def test_each_claude_hook_command_is_an_item_pinned_to_its_script(tmp_path: Path) -> None:
    (tmp_path / ".claude" / "hooks").mkdir(parents=True)
    script = tmp_path / ".claude" / "hooks" / "guard.py"
    script.write_text("print('ok')\n")
    command = 'python3 "$CLAUDE_PROJECT_DIR"/.claude/hooks/guard.py'
    (tmp_path / CLAUDE_SETTINGS).write_text(json.dumps({"hooks": {"PreToolUse": [
        {"matcher": "Bash", "hooks": [{"type": "command", "command": command}, {"type": "command", "command": "true"}]}]}}))
    guard, plain = _items(tmp_path)
    assert guard.kind == "hook" and guard.source == CLAUDE_SETTINGS and "(tools matching Bash)" in guard.shows
    assert [rel for rel, _digest in guard.pins] == [".claude/hooks/guard.py"] and plain.pins == ()
    before = guard.digest
    script.write_text("print('changed')\n")
    assert _items(tmp_path)[0].digest != before
