"""End-to-end: ``axon chat`` in a pseudo-terminal rings the terminal (raw bytes on the pty) when a
confirmation waits and when a long turn ends, as ``notify`` says."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.ui.test_repl import Chat
from tests.fakeserver import text_reply, tool_reply

BEL = "\x07"


def _config(project: Path, text: str) -> None:
    folder = project.parent / "home" / ".config" / "axon"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "config.toml").write_text(text)




def _ask_and_answer(c: Chat, server, project: Path) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    """A write that asks; returns the raw output up to the question, and what came after it."""
    server.add(tool_reply(("write_file", {"path": "a.txt", "content": "new\n"})), text_reply("wrote it"))
    c.say("write it")
    c.expect("allow write_file?")
    c.expect("then Enter")
    c.expect(">")                       # the answer prompt is drawn: the question waits
    asked = len(c.raw)
    c.send("y")
    c.expect("wrote it")
    c.prompt()
    assert (project / "a.txt").read_text() == "new\n"
    return c.raw[:asked], c.raw[asked:]


def test_a_waiting_confirmation_writes_bel_to_the_terminal(chat, server, project) -> None:
    c = chat()
    before_turn = len(c.raw)
    upto_question, _ = _ask_and_answer(c, server, project)
    assert BEL in upto_question[before_turn:]      # rung while the question waits, before any key
    c.exit()


def test_notify_off_writes_nothing(chat, server, project) -> None:
    _config(project, 'notify = "off"\nnotify_after = 0\n')
    c = chat()
    _ask_and_answer(c, server, project)
    assert BEL not in c.raw and "\x1b]9;" not in c.raw and "\x1b]777;" not in c.raw
    c.exit()


def test_osc_in_a_terminal_that_has_it_sends_the_message(chat, server, project) -> None:
    _config(project, 'notify = "osc"\n')
    c = chat(TERM_PROGRAM="WezTerm")
    upto_question, _ = _ask_and_answer(c, server, project)
    assert "\x1b]9;axon needs your permission to use write_file\x07" in upto_question
    c.exit()


def test_the_end_of_a_long_turn_rings_and_a_short_one_does_not(chat, server, project) -> None:
    # a threshold a quick turn stays under on a busy machine too, and a turn that surely passes it
    _config(project, "notify_after = 10\n")
    server.add(text_reply("quick answer"), text_reply("slow answer", hang=11))
    c = chat()
    c.say("quick")
    c.expect("quick answer")
    c.prompt()
    assert BEL not in c.raw
    c.say("slow")
    c.expect("slow answer", timeout=60)
    c.prompt()
    assert BEL in c.raw
    c.exit()
