"""Plan mode in the real ``axon chat`` (a pseudo-terminal): Shift-Tab cycles default → accept-edits →
plan → default and the prompt line shows the mode; ``/plan TEXT`` plans without changing anything,
shows the plan and asks whether to proceed; proceeding in default mode sends the approval as the
next request and the scripted edit then asks as default mode does; keeping on planning stays in
plan mode, where a write is still refused."""

from __future__ import annotations

import time
from pathlib import Path

from tests.e2e.ui.test_repl import Chat
from tests.fakeserver import text_reply, tool_reply

SHIFT_TAB = "\x1b[Z"
PLAN = "PLAN: 1. change a.txt to new. 2. check it."
WRITE = ("write_file", {"path": "a.txt", "content": "new\n"})




def _prompt_line(c: Chat, shown: str, timeout: float = 20) -> None:
    """Wait until the terminal's last prompt line is ``shown`` (e.g. ``plan › ``)."""
    deadline = time.monotonic() + timeout
    while True:
        lines = [line for line in c.screen() if "›" in line]
        if lines and lines[-1].rstrip() == shown.rstrip():
            return
        if time.monotonic() > deadline or not c._pump():
            raise AssertionError(f"prompt line {shown!r} not seen; screen:\n" + "\n".join(c.screen()))


def test_shift_tab_cycles_the_mode_and_plan_refuses_a_write(chat, server, project: Path) -> None:
    (project / "a.txt").write_text("old\n")
    server.add(tool_reply(WRITE), text_reply("could not write"))
    c = chat()
    c.send(SHIFT_TAB)
    _prompt_line(c, "accept-edits › ")
    c.send(SHIFT_TAB)
    _prompt_line(c, "plan › ")
    c.send(SHIFT_TAB)
    _prompt_line(c, "› ")
    c.send(SHIFT_TAB + SHIFT_TAB)
    _prompt_line(c, "plan › ")
    c.say("change a")
    c.expect("could not write")
    c.expect("Proceed with this plan?")
    c.send("3")
    c.expect("keeping plan mode")
    _prompt_line(c, "plan › ")
    assert (project / "a.txt").read_text() == "old\n"
    assert "Permission mode: plan." in server.requests[0].messages[0]["content"]
    assert "plan mode" in server.requests[1].messages[-1]["content"]
    c.exit()


def test_plan_then_proceed_in_default_carries_it_out_asking_before_the_edit(chat, server, project: Path) -> None:
    (project / "a.txt").write_text("old\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"}), WRITE), text_reply(PLAN), tool_reply(WRITE),
               text_reply("done as planned"))
    c = chat()
    c.say("/plan change a.txt to new")
    c.expect("mode: plan")
    c.expect(PLAN)
    c.expect("Proceed with this plan?")
    assert (project / "a.txt").read_text() == "old\n"          # the plan turn's write was refused
    c.send("1")
    c.expect("plan approved; mode: default")
    c.expect("allow write_file?")                              # default mode asks before the edit
    assert "The user approved your plan; the permission mode is now default." in \
        server.requests[2].conversation[-1]["content"]
    assert "You are in plan mode" not in server.requests[2].messages[0]["content"]
    c.send("y")
    c.expect("done as planned")
    _prompt_line(c, "› ")
    assert (project / "a.txt").read_text() == "new\n", server.requests[3].messages[-1]
    c.exit()


def test_keep_planning_stays_in_plan_mode_and_a_write_is_still_refused(chat, server, project: Path) -> None:
    (project / "a.txt").write_text("old\n")
    server.add(tool_reply(("read_file", {"path": "a.txt"})), text_reply(PLAN), tool_reply(WRITE),
               tool_reply(("bash", {"command": "echo x > a.txt"})), text_reply("PLAN v2: same, but smaller"))
    c = chat()
    c.say("/plan change a.txt")
    c.expect(PLAN)
    c.expect("Proceed with this plan?")
    c.say("make it smaller")                                   # a typed answer: keep planning, sent as the next turn
    c.expect("keeping plan mode")
    c.expect("PLAN v2: same, but smaller")
    c.expect("Proceed with this plan?")
    c.send("3")
    _prompt_line(c, "plan › ")
    assert server.requests[2].conversation[-1] == {"role": "user", "content": "make it smaller"}
    refused = [server.requests[n].messages[-1]["content"] for n in (3, 4)]
    assert all(r.startswith("Permission denied") and "plan mode" in r for r in refused), refused
    assert len(server.requests) == 5
    assert (project / "a.txt").read_text() == "old\n"
    c.exit()
