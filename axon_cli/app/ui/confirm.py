"""The REPL's approver: shows what a tool call would do and reads one keypress.

``y`` yes · ``n`` no · ``a`` always (this session) · ``p`` always in this project (dispatch then
writes the suggested rule to ``.axon/permissions.toml``) · or type a reason and press Enter: the
call is denied and the reason goes back to the model. Ctrl-C denies and interrupts the turn.
Asks arrive one at a time (dispatch prepares calls one by one on the agent's thread).
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.text import Text

from axon_cli.app.ui.render import diff_text
from axon_cli.kernel.events import ApprovalAnswer, ApprovalRequest, InputAnswer, InputRequest

__all__ = ["ReplApprover", "approval_panel", "choices_line", "answer_for", "read_choice"]

KeyReader = Callable[[str, str], str]
"""(prompt, single-key choices) -> one of the choices, or a typed reason; raises KeyboardInterrupt."""


def _looks_like_diff(text: str) -> bool:
    return text.startswith(("--- ", "diff ", "@@")) or "\n@@ " in text


def _body(request: ApprovalRequest) -> RenderableType:
    from rich.syntax import Syntax  # pygments: loaded with the first confirmation, not before the prompt

    preview = request.preview.strip("\n")
    if preview and _looks_like_diff(preview):
        return diff_text(preview, max_lines=40)
    if request.tool == "bash":
        command = preview or str(request.arguments.get("command", request.summary))
        return Syntax(command, "bash", theme="ansi_dark", word_wrap=True, background_color="default")
    if preview:
        return Text(preview)
    args = json.dumps(request.arguments, ensure_ascii=False, indent=2)
    return Syntax(args if len(args) < 2000 else args[:2000] + "\n…", "json", theme="ansi_dark",
                  word_wrap=True, background_color="default")


def approval_panel(request: ApprovalRequest) -> Panel:
    """The tool, what it would do (command or diff), why it asks, whether it is destructive, and
    whether, approved, it runs outside the sandbox (and why)."""
    outside = "runs outside the sandbox"
    reason = request.reason or "the permission mode asks"
    why = Text.assemble(("why: ", "dim"), (reason, "bold magenta" if reason.startswith(outside) else ""))
    if request.destructive and "destructive" not in request.reason:
        why.append("  ·  ", "dim")
        why.append("destructive", "bold red")
    if request.outside_sandbox and not reason.startswith(outside):
        why.append("\nif approved, it ", "dim")
        why.append(outside, "bold magenta")
        why.append(f": {request.outside_reason}" if request.outside_reason else "", "magenta")
    title = Text.assemble(("allow ", ""), (request.tool, "bold"), ("?", ""))
    if request.summary and request.tool != "bash":
        title.append(f"  {request.summary[:60]}", "dim")
    return Panel(Group(_body(request), Text(), why), title=title, title_align="left",
                 border_style="red" if request.destructive else "yellow", expand=True)


def choices_line(request: ApprovalRequest) -> Text:
    text = Text.assemble(("y", "bold green"), " yes · ", ("n", "bold red"), " no")
    if request.suggested_rule:
        text.append_text(Text.assemble(" · ", ("a", "bold"), " always this session · ", ("p", "bold"),
                                       " always in this project\n", ("rule ", "dim"),
                                       (request.suggested_rule, "cyan"), (" · ", "dim")))
    else:
        text.append("\n")
    text.append("or type a reason for the model (any other first key), then Enter", "dim")
    return text


def answer_for(choice: str, request: ApprovalRequest) -> ApprovalAnswer:
    """The answer for a key (``y n a p``) or a typed reason (a denial carrying it)."""
    if choice == "y":
        return ApprovalAnswer(approved=True)
    if choice == "a" and request.suggested_rule:
        return ApprovalAnswer(approved=True, remember="session")
    if choice == "p" and request.suggested_rule:
        return ApprovalAnswer(approved=True, remember="project")
    if choice == "n":
        return ApprovalAnswer(approved=False)
    return ApprovalAnswer(approved=False, message=choice.strip())


def read_choice(prompt: str, keys: str, allow_empty: bool = False) -> str:
    """One keypress among ``keys`` (when nothing is typed yet), or a line of text ended by Enter
    (an empty line only when ``allow_empty``). A Ctrl-C at the question is prompt_toolkit's: it raises
    ``KeyboardInterrupt`` with the terminal restored; before ``interrupts.ready`` (the trust screen, the
    session picker) one around it ends axon at once."""
    if not sys.stdin.isatty():
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line.strip()
    from prompt_toolkit import PromptSession
    from prompt_toolkit.application.current import get_app
    from prompt_toolkit.filters import Condition
    from prompt_toolkit.key_binding import KeyBindings

    kb = KeyBindings()
    empty = Condition(lambda: not get_app().current_buffer.text)

    def bind(key: str) -> None:
        @kb.add(key, filter=empty)
        def _(event: object) -> None:
            get_app().exit(result=key)

    for key in keys:
        bind(key)

    @kb.add("escape", eager=True)
    def _(event: object) -> None:
        get_app().exit(result="n")

    @kb.add("enter", filter=empty & Condition(lambda: not allow_empty))
    def _(event: object) -> None:
        """Enter alone does nothing: an answer needs a key or a reason."""

    session: PromptSession[str] = PromptSession(key_bindings=kb, erase_when_done=True)
    return str(session.prompt(prompt)).strip()


class ReplApprover:
    """Pauses the live output, shows the request, reads the answer, says what it decided."""

    def __init__(self, console: Console, pause: Callable[[], None] = lambda: None,
                 read: KeyReader = read_choice, notify: Callable[[str], None] = lambda _m: None) -> None:
        self.console = console
        self.pause = pause
        self.read = read
        self.notify = notify          # rings the terminal (ui.notify) once the question is on screen
        self.cancel: threading.Event | None = None   # the runtime's ctx.cancel, set by the REPL
        self._lock = threading.Lock()

    def __call__(self, request: ApprovalRequest) -> ApprovalAnswer:
        with self._lock:
            if self.cancel is not None and self.cancel.is_set():
                return ApprovalAnswer(approved=False, message="interrupted by user")
            self.pause()
            self.console.print(approval_panel(request))
            self.console.print(choices_line(request))
            keys = "ynap" if request.suggested_rule else "yn"
            self.notify(f"axon needs your permission to use {request.tool}")
            try:
                choice = self.read("> ", keys)
            except (KeyboardInterrupt, EOFError):
                if self.cancel is not None:
                    self.cancel.set()
                self.console.print(Text("✗ not approved (interrupted)", "red"))
                return ApprovalAnswer(approved=False, message="interrupted by user")
            answer = answer_for(choice or "n", request)
            self.console.print(self._outcome(answer, request))
            return answer

    def ask_input(self, request: InputRequest) -> InputAnswer:
        """A server's question (an MCP elicitation): its message and fields; ``y`` answers (each
        field is then typed and ended by Enter), ``n`` declines, Ctrl-C cancels."""
        with self._lock:
            self.pause()
            body = Text(request.message)
            if request.url:
                body.append(f"\nopen: {request.url}", "cyan")
            for f in request.fields:
                hint = f" ({' | '.join(f.choices)})" if f.choices else f" ({f.kind})" if f.kind != "string" else ""
                body.append(f"\n  {f.title or f.name}{hint}{'' if f.required else ' — optional'}", "bold")
                if f.description:
                    body.append(f": {f.description}", "dim")
            title = Text.assemble((request.source, "bold"), (" asks", ""))
            self.console.print(Panel(body, title=title, title_align="left", border_style="cyan", expand=True))
            self.console.print(Text.assemble(("y", "bold green"), " answer · ", ("n", "bold red"), " decline"))
            self.notify(f"{request.source} asks a question")
            try:
                if self.read("> ", "yn") != "y":
                    self.console.print(Text("✗ declined", "red"))
                    return InputAnswer(action="decline", message="the user declined")
                values = {f.name: self.read(f"{f.title or f.name}> ", "") for f in request.fields}
            except (KeyboardInterrupt, EOFError):
                self.console.print(Text("✗ cancelled", "red"))
                return InputAnswer(action="cancel", message="the user cancelled")
            self.console.print(Text("✓ answered", "green"))
            return InputAnswer(action="accept", values=values)

    @staticmethod
    def _outcome(answer: ApprovalAnswer, request: ApprovalRequest) -> Text:
        if not answer.approved:
            why = f" — told the model: {answer.message}" if answer.message else ""
            return Text(f"✗ not approved{why}", "red")
        if answer.remember == "session":
            return Text(f"✓ approved; allowing {request.suggested_rule} for the rest of this session", "green")
        if answer.remember == "project":
            return Text(f"✓ approved; added allow rule {request.suggested_rule} to .axon/permissions.toml",
                        "green")
        return Text("✓ approved", "green")
