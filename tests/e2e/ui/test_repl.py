"""End-to-end: the real ``axon chat`` in a pseudo-terminal (pexpect) against the scripted server."""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pexpect
import pyte

from tests.conftest import axon_command
from tests.fakeserver import Reply, error_reply, text_reply, tool_reply

ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[()][A-Z0-9]|\x1b[=>78]|\r")
ENTER, ALT_ENTER, CTRL_C, CTRL_D = "\r", "\x1b\r", "\x03", "\x04"


class Chat:
    """A running ``axon chat``; ``expect`` waits for text in the output with ANSI codes removed."""

    def __init__(self, project: Path, env: dict[str, str], *args: str, ignore_sigint: bool = False) -> None:
        cmd = axon_command()
        env = {**env, "TERM": "xterm-256color", "PROMPT_TOOLKIT_NO_CPR": "1"}
        env.pop("COLUMNS", None)
        preexec = (lambda: signal.signal(signal.SIGINT, signal.SIG_IGN)) if ignore_sigint else None
        self.child = pexpect.spawn(cmd[0], [*cmd[1:], "chat", *args], cwd=str(project), env=env,
                                   dimensions=(40, 120), encoding="utf-8", codec_errors="replace",
                                   preexec_fn=preexec)
        self.raw = ""
        self.mark = 0

    def text(self) -> str:
        return ANSI.sub("", self.raw)

    def _pump(self, timeout: float = 0.1) -> bool:
        try:
            self.raw += self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            pass
        except pexpect.EOF:
            return False
        return True

    def expect(self, needle: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while True:
            clean = self.text()
            at = clean.find(needle, self.mark)
            if at >= 0:
                self.mark = at + len(needle)
                return clean
            if time.monotonic() > deadline or not self._pump():
                if at < 0 and needle in self.text()[self.mark:]:
                    continue
                raise AssertionError(f"{needle!r} not seen in {timeout} s; output after mark:\n"
                                     f"{self.text()[self.mark:][-3000:]}")

    def screen(self) -> list[str]:
        """What a 120x40 terminal shows now (the output replayed through a terminal emulator)."""
        screen = pyte.Screen(120, 40)
        pyte.Stream(screen).feed(self.raw)
        return [line.rstrip() for line in screen.display]

    def prompt(self) -> None:
        self.expect("› ")

    def send(self, keys: str) -> None:
        self.child.send(keys)

    def say(self, message: str) -> None:
        self.send(message + ENTER)

    def kill(self) -> None:
        """End the chat at once (SIGKILL) and reap it: pexpect's own forced close gives a killed child
        0.1 s to be reaped, which a busy machine can miss (it then raises "Could not terminate")."""
        if self.child.isalive():
            self.child.kill(signal.SIGKILL)
            self.child.wait()
        self.child.close(force=True)

    def exit(self) -> str:
        """Ctrl-D, and again whenever a prompt is drawn after it: a key sent while the REPL was still
        printing the last answer can be dropped when the terminal switches to raw mode for the prompt."""
        self.send(CTRL_D)
        sent_at, resent = len(self.raw), 0
        deadline = time.monotonic() + 60      # exiting closes MCP servers and ends the turn's snapshot
        while self._pump() and time.monotonic() < deadline:
            if resent < 3 and "› " in ANSI.sub("", self.raw[sent_at:]):
                self.send(CTRL_D)
                sent_at, resent = len(self.raw), resent + 1
        self.child.close()
        assert self.child.exitstatus == 0, self.text()[-2000:]
        assert "Traceback" not in self.raw
        return self.text()




def test_streamed_answer_appears(chat, server, project):
    server.add(text_reply("Hello **there**, this answer was streamed.\n\nSecond paragraph.", chunk_delay=0.01))
    c = chat()
    c.say("hi")
    c.expect("Hello there, this answer was streamed.")
    c.expect("Second paragraph.")
    c.prompt()
    shown = "\n".join(c.screen())
    assert shown.count("Hello there, this answer was streamed.") == 1 and shown.count("Second paragraph.") == 1
    assert shown.index("› hi") < shown.index("Hello there") < shown.index("Second paragraph.")
    c.exit()
    assert server.requests[0].conversation[-1] == {"role": "user", "content": "hi"}
    assert "hi" in (project / ".axon" / "history").read_text()


def test_confirmation_n_leaves_file_y_changes_it(chat, server, project):
    (project / "a.txt").write_text("old\n")
    write = ("write_file", {"path": "a.txt", "content": "new\n"})
    server.add(tool_reply(("read_file", {"path": "a.txt"})), tool_reply(write), text_reply("did not write"),
               tool_reply(write), text_reply("wrote it"))
    c = chat()
    c.say("change it")
    c.expect("allow write_file?")
    c.expect("+new")
    c.send("n")
    c.expect("not approved")
    c.expect("did not write")
    assert (project / "a.txt").read_text() == "old\n"
    assert "the user did not approve" in server.requests[2].messages[-1]["content"]
    c.prompt()
    c.say("again")
    c.expect("allow write_file?")
    c.send("y")
    c.expect("wrote it")
    assert (project / "a.txt").read_text() == "new\n"
    c.exit()


def test_typed_reason_goes_back_to_the_model(chat, server, project):
    server.add(tool_reply(("write_file", {"path": "b.txt", "content": "x"})), text_reply("ok, I will not"))
    c = chat()
    c.say("make b")
    c.expect("allow write_file?")
    c.say("Name it c.txt instead")
    c.expect("ok, I will not")
    assert not (project / "b.txt").exists()
    assert "Name it c.txt instead" in server.requests[1].messages[-1]["content"]
    c.exit()


def test_p_writes_a_rule_the_next_session_honours(chat, server, project):
    call = ("bash", {"command": "touch marker.txt"})
    server.add(tool_reply(call), text_reply("first done"), tool_reply(call), text_reply("second done"))
    c = chat("--sandbox", "off")          # unsandboxed, touch asks
    c.say("status please")
    c.expect("allow bash?")
    c.send("p")
    c.expect("first done")
    c.exit()
    perms = (project / ".axon" / "permissions.toml").read_text()
    assert "bash(touch marker.txt)" in perms
    c2 = chat("--sandbox", "off")
    c2.say("status again")
    c2.expect("second done")
    assert "allow bash?" not in c2.text()
    c2.exit()


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def test_ctrl_c_stops_a_running_command_and_the_conversation_continues(chat, server, project):
    server.add(tool_reply(("bash", {"command": "echo $$ > pid.txt; exec sleep 30"})), text_reply("continuing"))
    c = chat("--mode", "yolo", "--sandbox", "off")   # host pids: about the unsandboxed process group
    c.say("run it")
    pid_file = project / "pid.txt"
    deadline = time.monotonic() + 15
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert time.monotonic() < deadline, c.text()[-2000:]
        c._pump(0.05)
    pid = int(pid_file.read_text())
    assert not _gone(pid)
    c.send(CTRL_C)
    c.expect("interrupted", timeout=30)
    c.prompt()
    deadline = time.monotonic() + 30
    while not _gone(pid):
        assert time.monotonic() < deadline, f"process {pid} still running"
        time.sleep(0.02)
    c.say("go on")
    c.expect("continuing")
    messages = server.requests[1].conversation
    assert messages[-1] == {"role": "user", "content": "go on"}
    assert messages[-2]["role"] == "tool" and "interrupted by user" in messages[-2]["content"]
    c.exit()


def test_mode_read_only_blocks_a_write(chat, server, project):
    server.add(tool_reply(("write_file", {"path": "c.txt", "content": "x"})), text_reply("blocked"))
    c = chat()
    c.say("/mode read-only")
    c.expect("mode: read-only")
    c.say("write c")
    c.expect("denied")
    c.expect("blocked")
    assert not (project / "c.txt").exists()
    assert "Permission denied" in server.requests[0 + 1].messages[-1]["content"]
    c.exit()


def test_api_error_is_one_line_and_the_prompt_returns(chat, server):
    server.add(error_reply(401, "invalid key"), text_reply("recovered"))
    c = chat()
    c.say("hello")
    c.expect("error: the endpoint rejected the API key")
    c.prompt()
    c.say("again")
    c.expect("recovered")
    c.exit()


def test_a_line_typed_ahead_while_a_turn_runs_is_sent_by_its_enter(chat, server):
    """Type-ahead: a message and its Enter typed while the model is still answering wait for the next
    prompt as typed, and that Enter sends the message (the terminal's line discipline turned it into
    Ctrl-J, the prompt's newline, and the message sat unsent under a continuation mark)."""
    answer_first = threading.Event()

    def first(_body: dict[str, Any]) -> Reply:
        answer_first.wait(60)
        return text_reply("first answer")

    server.add(first, text_reply("second answer"))
    c = chat()
    c.prompt()
    c.say("one")
    server.wait_for_requests(1)            # the turn runs: the model has been asked and holds its answer
    c.say("two")
    answer_first.set()
    c.expect("first answer")
    c.expect("second answer")
    assert len(server.requests) == 2 and server.requests[1].messages[-1]["content"] == "two"
    c.exit()


def test_slash_commands(chat, server):
    server.add(text_reply("ok"))
    c = chat()
    c.say("/hepl")
    c.expect("unknown command /hepl — did you mean /help?")
    c.say("/help")
    c.expect("/undo")
    c.expect("file edits and bash commands alike")
    c.say("/tools")
    c.expect("read_file")
    c.expect("Deferred")
    c.say("/model other-model")
    c.expect("model: other-model")
    c.say("/mode nonsense")
    c.expect("unknown mode 'nonsense'")
    c.say("hi")
    c.expect("ok")
    c.say("/cost")
    c.expect("token")
    c.exit()
    assert server.requests[0].body["model"] == "other-model"


def test_multiline_paste_and_mentions(chat, server, project):
    (project / "notes.md").write_text("the notes\n")
    server.add(text_reply("reply-1"), text_reply("reply-2"), text_reply("reply-3"))
    c = chat()
    c.send("line one" + ALT_ENTER + "line two" + ENTER)
    c.expect("reply-1")
    c.prompt()
    c.send("\x1b[200~pasted a\npasted b\n\x1b[201~" + ENTER)
    c.expect("reply-2")
    c.prompt()
    c.say("read @notes.md please")
    c.expect("attached notes.md")
    c.expect("reply-3")
    c.exit()
    contents = [r.conversation[-1]["content"] for r in server.requests]
    assert contents[0] == "line one\nline two"
    assert contents[1].strip() == "pasted a\npasted b"
    assert contents[2].startswith("read @notes.md please") and '<file path="notes.md">\nthe notes\n' in contents[2]


def test_ctrl_c_on_empty_prompt_twice_exits(chat):
    c = chat()
    c.send("typed text")
    c.send(CTRL_C)                     # clears the line
    c.send(CTRL_C)
    c.expect("press Ctrl-C again")
    c.prompt()                         # the next prompt is up: a Ctrl-C before it is a signal between prompts
    c.send(CTRL_C)
    c.child.expect(pexpect.EOF, timeout=60)
    c.child.close()
    assert c.child.exitstatus == 0
    assert os.path.exists(c.child.cwd or ".")


def test_ctrl_c_while_streaming_stops_the_turn(chat, server):
    words = " ".join(f"word{i}" for i in range(3000))     # ~50 s of stream: Ctrl-C lands long before its end
    server.add(text_reply("Starting. " + words, chunk_delay=0.02), text_reply("next answer"))
    c = chat()
    c.say("talk")
    c.expect("Starting.")
    c.send(CTRL_C)
    c.expect("interrupted", timeout=30)
    c.prompt()
    c.say("and now?")
    c.expect("next answer")
    c.exit()
    assert "word2999" not in c.text()
    assert server.requests[1].messages[-1] == {"role": "user", "content": "and now?"}


def test_slash_undo_restores_what_a_bash_command_changed(chat, server, project):
    (project / "a.txt").write_text("original\n")
    server.add(tool_reply(("bash", {"command": "echo changed > a.txt && echo more > b.txt"})), text_reply("changed"),
               text_reply("noted"))   # not "I will …": that would draw the intent reminder's extra request
    c = chat("--mode", "yolo", "--sandbox", "off")
    c.say("change a")
    c.expect("changed")
    c.prompt()
    assert (project / "a.txt").read_text() == "changed\n"
    c.say("/undo")
    c.expect("restored a.txt")
    c.expect("deleted b.txt (created in that turn)")
    c.prompt()
    assert (project / "a.txt").read_text() == "original\n" and not (project / "b.txt").exists()
    c.say("/undo")
    c.expect("nothing to undo")
    c.say("/undo two")
    c.expect("/undo takes a number of turns")
    c.say("next")
    c.expect("noted")
    c.prompt()
    assert len(server.requests) == 3
    assert "the user undid your changes" in server.requests[-1].messages[-2]["content"]
    c.exit()


def test_ctrl_c_interrupts_a_chat_started_with_sigint_ignored(project, axon_env, server):
    # a script's `axon chat &`-style start (and a test runner started in the background) ignores
    # SIGINT; at a terminal, Ctrl-C must still stop the turn
    words = " ".join(f"word{i}" for i in range(3000))
    server.add(text_reply("Starting. " + words, chunk_delay=0.02), text_reply("next answer"))
    c = Chat(project, axon_env, ignore_sigint=True)
    try:
        c.prompt()
        c.say("talk")
        c.expect("Starting.")
        c.send(CTRL_C)
        c.expect("interrupted", timeout=30)
        c.prompt()
    finally:
        c.kill()
