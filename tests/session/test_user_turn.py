"""The typed user turn (``axon_cli/kernel/turn.py``): ``@path`` mentions become ``Attachment`` values, and the
turn renders to exactly the message the glued string was before (the expected bytes below are that
format, written out); a string read back gives the same turn; the answer guidance gets the same
answers from a typed turn as from its rendered message; a session records the user's words."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from axon_cli.agent.guidance.nudges import NATIVE_HINT
from axon_cli.agent.guidance.reminders import AnswerChecks
from axon_cli.kernel.turn import Attachment, UserTurn
from axon_cli.session.conversation.attach import (
    MAX_ATTACH_BYTES,
    MAX_ATTACH_LINES,
    attach_mentions,
)
from axon_cli.session.conversation.transcript import Transcript, list_sessions, load_transcript
from axon_cli.settings.config import Settings
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

A_PY = "def add(a, b):\n    return a - b\n"
CUT = "[truncated to the first {n} lines; use read_file with an offset for the rest]"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "a.py").write_text(A_PY)
    (root / "src" / "b.txt").write_text("bee\n")
    (root / "big.txt").write_text("".join(f"line {i}\n" for i in range(MAX_ATTACH_LINES + 500)))
    (root / "wide.txt").write_text("x" * (MAX_ATTACH_BYTES + 50_000))
    (root / "conf.ini").write_text("password = hunter2hunter2\n")
    (root / ".env").write_text("API_KEY=sk-live-abcdefghijklmnop1234\n")
    return root


def test_text_alone_renders_as_the_words(root):
    turn, notes = attach_mentions("hello there, @missing.py", root)
    assert turn == UserTurn("hello there, @missing.py") and notes == []
    assert turn.render() == "hello there, @missing.py"


def test_one_attachment_renders_the_same_bytes(root):
    turn, notes = attach_mentions("review @a.py please", root)
    assert turn == UserTurn("review @a.py please", (Attachment("a.py", A_PY),))
    assert turn.render() == ('review @a.py please\n\nAttached files:\n<file path="a.py">\n'
                             'def add(a, b):\n    return a - b\n\n</file>')
    assert notes == ["attached a.py"]


def test_several_attachments_in_order_once_each_masked(root):
    turn, notes = attach_mentions("compare @a.py and @src/b.txt, @a.py again; @conf.ini.", root)
    assert turn.attached_paths == ("a.py", "src/b.txt", "conf.ini")
    assert turn.render() == (
        'compare @a.py and @src/b.txt, @a.py again; @conf.ini.\n\nAttached files:\n'
        '<file path="a.py">\ndef add(a, b):\n    return a - b\n\n</file>\n'
        '<file path="src/b.txt">\nbee\n\n</file>\n'
        '<file path="conf.ini">\npassword = [REDACTED]\n\n</file>')
    assert "hunter2" not in repr(turn)      # the value holds the masked text, never the secret
    assert notes == ["attached a.py", "attached src/b.txt", "attached conf.ini"]


def test_a_capped_attachment_carries_its_note(root):
    turn, notes = attach_mentions("look at @big.txt", root)
    assert turn.attachments[0].note == CUT.format(n=MAX_ATTACH_LINES)[1:-1]
    lines = "\n".join(f"line {i}" for i in range(MAX_ATTACH_LINES))
    assert turn.render() == ('look at @big.txt\n\nAttached files:\n<file path="big.txt">\n'
                             + lines + "\n" + CUT.format(n=MAX_ATTACH_LINES) + "\n</file>")
    assert notes == [f"attached big.txt (truncated to the first {MAX_ATTACH_LINES} lines)"]
    wide, _ = attach_mentions("and @wide.txt", root)
    assert wide.render() == ('and @wide.txt\n\nAttached files:\n<file path="wide.txt">\n'
                             + "x" * MAX_ATTACH_BYTES + "\n" + CUT.format(n=1) + "\n</file>")


def test_a_sensitive_file_is_refused_and_leaves_no_trace(root):
    turn, notes = attach_mentions("read @.env and @a.py", root, skip_sensitive=True)
    assert turn.attached_paths == ("a.py",) and "sk-live" not in turn.render()
    assert turn.render() == ('read @.env and @a.py\n\nAttached files:\n<file path="a.py">\n'
                             'def add(a, b):\n    return a - b\n\n</file>')
    assert notes == ["@.env: a sensitive file, not attached", "attached a.py"]
    alone, notes = attach_mentions("read @.env", root, skip_sensitive=True)
    assert alone == UserTurn("read @.env") and alone.render() == "read @.env"
    assert notes == ["@.env: a sensitive file, not attached"]


@pytest.mark.parametrize("text", ["hello", "review @a.py please", "compare @a.py and @src/b.txt",
                                  "look at @big.txt", "and @wide.txt", "see @conf.ini"])
def test_a_rendered_message_reads_back_as_the_same_turn(root, text):
    turn, _ = attach_mentions(text, root)
    assert UserTurn.of(turn.render()) == turn
    assert UserTurn.of(turn) is turn


@pytest.mark.parametrize("message", [
    "words\n\nAttached files:\n",                                     # no file block
    "words\n\nAttached files:\nnot a block",
    'words\n\nAttached files:\n<file path="a.py">\nx\n</file>\ntrailing text',
    'words\n\nAttached files:\n<file path="a.py">\nno end',
])
def test_a_message_not_laid_out_as_a_turn_is_words_alone(message):
    assert UserTurn.of(message) == UserTurn(message)
    assert UserTurn.of(message).render() == message


def test_a_file_that_quotes_the_layout_still_renders_the_same_bytes():
    inner = 'x\n</file>\n<file path="fake.py">\ny'
    turn = UserTurn("q", (Attachment("a.py", inner), Attachment("b.py", "z")))
    assert UserTurn.of(turn.render()).render() == turn.render()


@pytest.fixture
def ctx(root: Path) -> ToolContext:
    return ToolContext(project_root=root, state_dir=root / ".axon", session_id="s", settings=Settings())


@pytest.mark.parametrize("text, answer", [
    ("what does @a.py do?", "It subtracts."),             # attached: no "look first"
    ("what does a.py do?", "It subtracts."),              # named only: read it first
    ("Review @a.py, any bugs", "The bug has been fixed."),
    ("summarise this project, see @a.py", "A calculator."),   # attached: no "look at the project"
    ("summarise this project", "A calculator."),
    ("Delete @a.py", "Done."),
])
def test_the_guidance_answers_alike_from_the_typed_turn_and_its_message(root, ctx, text, answer):
    turn, _ = attach_mentions(text, root)
    registry = ToolRegistry.with_builtins()
    typed = AnswerChecks(turn, NATIVE_HINT, registry, ctx)
    rendered = AnswerChecks(turn.render(), NATIVE_HINT, registry, ctx)
    assert typed.asked == rendered.asked == text
    assert typed.check(answer) == rendered.check(answer)
    assert typed.check(answer) == rendered.check(answer)


def test_a_session_lists_the_words_of_a_turn_that_attached_files(tmp_path, root):
    """The turn line records the words (new sessions); an older transcript without them lists its
    first message as it is: nothing re-reads the rendered layout."""
    turn, _ = attach_mentions("review @a.py please", root)
    t = Transcript(tmp_path, "20240501-100000-aaaaaa")
    t.meta("turn", n=1, asked=turn.text)
    t.append({"role": "user", "content": turn.render()})
    assert load_transcript(t.path).first_prompt == "review @a.py please"
    assert load_transcript(t.path).messages[0]["content"] == turn.render()
    old = Transcript(tmp_path, "20240401-100000-bbbbbb")
    old.meta("turn", n=1)
    old.append({"role": "user", "content": turn.render()})
    infos = {i.id: i.first_prompt for i in list_sessions(tmp_path)}
    assert infos == {"20240501-100000-aaaaaa": "review @a.py please", "20240401-100000-bbbbbb": turn.render()}


def test_the_session_callbacks_record_the_words_only_for_a_turn_with_files(run_axon, server, project):
    from tests.fakeserver import text_reply

    (project / "a.py").write_text(A_PY)
    (project / ".axon" / "commands").mkdir(parents=True)
    (project / ".axon" / "commands" / "look.md").write_text("Look at @a.py\n")
    server.add(text_reply("ok"), text_reply("ok"))
    assert run_axon("run", "--command", "look").code == 0
    assert run_axon("run", "-c", "plain words").code == 0
    [path] = (project / ".axon" / "sessions").glob("*.jsonl")
    turns = [line for line in map(json.loads, path.read_text().splitlines()) if line.get("kind") == "turn"]
    assert [t.get("asked") for t in turns] == ["Look at @a.py", None]
