"""Which tasks name a rename or move, and the one command that makes it (``guidance/moves``): named
only when every fact holds (a path named as one, inside the project, nothing overwritten)."""

from __future__ import annotations

from pathlib import Path

import pytest

from axon_cli.agent.guidance.moves import task_moves
from axon_cli.machinery.sandbox.probe import SandboxStatus
from axon_cli.settings.config import Settings
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

FILES = ("ledger.txt", "journal.txt", "src/parse.py", "media/a.png", "memo.txt", ".env", "cli.py", "docs/")


@pytest.fixture
def ctx(tmp_path: Path) -> ToolContext:
    root = tmp_path / "proj"
    for rel in FILES:
        path = root / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("x\n")
    registry = ToolRegistry.with_builtins(SandboxStatus("off", "off", "test"))
    return ToolContext(project_root=root, state_dir=tmp_path / "state", session_id="t",
                       settings=Settings(sandbox="off"), registry=registry)


@pytest.mark.parametrize("task, command", [
    ("Rename memo.txt to minutes.txt.", "mv -n memo.txt minutes.txt"),
    ("rename `memo.txt` to `notes/minutes.md` please", "mkdir -p notes && mv -n memo.txt notes/minutes.md"),
    ("Rename the folder media to assets (keep every file in it).", "mv -n media assets"),
    ("rename the media folder to the assets folder", None),              # "media" alone is not named a path
    ("Rename the folder media to the assets folder.", "mv -n media assets"),
    ("Move cli.py into docs/.", "mv -n cli.py docs/"),
    ("Move cli.py to docs", "mv -n cli.py docs/"),                      # an existing folder: into it
    ("move cli.py into the tools directory", "mkdir -p tools && mv -n cli.py tools/"),
    ("Please move the file src/parse.py to the lib folder.", "mkdir -p lib && mv -n src/parse.py lib/"),
    ("Fix the typo in cli.py, then rename memo.txt to minutes.txt", "mv -n memo.txt minutes.txt"),
    ("Rename ledger.txt to journal.txt", None),                          # it would overwrite journal.txt
    ("rename media to assets", None),                                    # a bare word: maybe a name in code
    ("Rename the function parse to parse_line in src/parse.py", None),
    ("Move the constant LIMIT from cli.py to src/parse.py", None),
    ("move the print statement from cli.py to src/parse.py", None),
    ("Rename the key name to title in memo.txt", None),
    ("rename .env to env.txt", None),                                    # a sensitive file
    ("rename memo.txt to .env", None),
    ("move memo.txt to ../elsewhere/memo.txt", None),                   # outside the project
    ("rename absent.txt to present.txt", None),                          # nothing to move
    ("Do not move cli.py into docs/; fix its import instead.", None),
    ("Rename memo.txt to memo.txt", None),
])
def test_the_move_and_its_command(ctx: ToolContext, task: str, command: str | None) -> None:
    found = [c for m in task_moves(task, ctx) if (c := m.command(ctx)) is not None]
    assert found == ([command] if command else [])


def test_a_move_already_made_names_nothing(ctx: ToolContext) -> None:
    (move,) = task_moves("Rename memo.txt to minutes.txt.", ctx)
    (ctx.project_root / "memo.txt").rename(ctx.project_root / "minutes.txt")
    assert move.command(ctx) is None


def test_a_folder_that_holds_the_name_already_names_nothing(ctx: ToolContext) -> None:
    (ctx.project_root / "docs" / "memo.txt").write_text("other\n")
    assert [m.command(ctx) for m in task_moves("Move memo.txt into docs/.", ctx)] == [None]
