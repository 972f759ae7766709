"""``axon chat``: the interactive loop — read a message, run the agent on the main thread, repeat.

The agent runs on the main thread between prompts, so Ctrl-C raises ``KeyboardInterrupt`` right
where the turn is (streaming, waiting for a tool, or in a confirmation prompt); the agent answers
every open tool call with "interrupted by user" and the next message continues the conversation.
Nothing escapes a turn as a traceback: API errors arrive as ``Error`` events (one line), anything
else is caught here, logged, and shown as one line.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text

from axon_cli.app.ui.notify import Notifier
from axon_cli.app.ui.opener import Opener
from axon_cli.app.ui.plan import prompt_fragments
from axon_cli.app.ui.render import make_console, print_error, print_notice, toolbar_text
from axon_cli.app.ui.terminal import ctrl_c_interrupts, no_echo
from axon_cli.kernel.state import ensure_state_dir
from axon_cli.kernel.version import __version__

if TYPE_CHECKING:
    from axon_cli.app.telemetry import TelemetrySink
    from axon_cli.app.ui.confirm import ReplApprover
    from axon_cli.app.ui.stream import StreamView
    from axon_cli.kernel.events import Approver
    from axon_cli.kernel.turn import UserTurn
    from axon_cli.session.extend.commands import CustomCommand
    from axon_cli.session.runtime.opening import Runtime
    from axon_cli.settings.config import LoadedSettings

__all__ = ["run_repl", "Repl", "open_runtime"]

log = logging.getLogger("axon.repl")


def open_runtime(loaded: LoadedSettings, root: Path, approver: Approver, cont: bool = False,
                 resume: str | None = None) -> Runtime:
    """A runtime for a new, continued (latest) or resumed (id or unique prefix) session."""
    from axon_cli.session.runtime.opening import open_session

    return open_session(loaded, root, approver, cont=cont, resume=resume, fork_busy=True)


def _warm_up(*_: Any) -> None:
    """Import the HTTP client while the user types, so the first answer starts sooner (once the
    prompt is on screen and the session is open: before, it would slow them)."""
    from axon_cli.app import preload

    with contextlib.suppress(Exception):
        preload.begin()


class Repl:
    """At a terminal the prompt comes first: the session is opened on a thread once the prompt is
    drawn (``opener.py``), and its banner and start-up notices are printed above the prompt when it
    is open, or before the first line is handled, whichever is first. Without a terminal it is
    opened before the first line is read, as ``axon run`` does."""

    view: StreamView
    approver: ReplApprover
    telemetry: TelemetrySink | None

    def __init__(self, loaded: LoadedSettings, project_root: Path) -> None:
        self.loaded = loaded
        self.project_root = project_root
        self.state_dir = ensure_state_dir(project_root / ".axon")
        self.console = make_console()
        settings = loaded.settings
        self.notifier = Notifier(settings.notify, settings.notify_after)
        self.tty = sys.stdin.isatty() and sys.stdout.isatty()
        self.running = True
        self._rt: Runtime | None = None
        self._opener: Opener[Runtime] | None = None
        self._resumed = False
        self._held_notes: list[str] = []              # the telemetry's, printed with the banner
        self._status: tuple[int, str] = (0, "")      # context tokens used, cost: set between turns
        if not self.tty:
            self._make_parts(lambda line: print_notice(self.console, line))

    def _make_parts(self, note: Any) -> None:
        """The live view, the approver and the telemetry (the core's imports: off the prompt's path)."""
        from axon_cli.app.telemetry import start_telemetry
        from axon_cli.app.ui.confirm import ReplApprover
        from axon_cli.app.ui.stream import StreamView

        self.view = StreamView(self.console)
        self.approver = ReplApprover(self.console, pause=self.view.pause, notify=self.notifier.ring)
        self.telemetry = start_telemetry(self.loaded.settings.telemetry, "axon.session", __version__, note)

    # -- runtime ----------------------------------------------------------------------------
    @property
    def rt(self) -> Runtime:
        if self._rt is None and self._opener is not None:
            self._adopt(self._opener.result())
        assert self._rt is not None, "the runtime is opened by start()"
        return self._rt

    def _runtime_now(self) -> Runtime:
        """The session, waiting for it to open if it must, without printing (inside the prompt)."""
        if self._rt is None and self._opener is not None:
            return self._opener.result()
        return self.rt

    def _use(self, rt: Runtime) -> None:
        from axon_cli.agent.model.endpoints import endpoint_address
        from axon_cli.kernel.events import SessionStarted

        old, self._rt = self._rt, rt
        if old is not None:
            old.close()
        rt.bus.subscribe(self.view)
        if self.telemetry is not None:
            rt.bus.subscribe(self.telemetry)
        self.approver.cancel = rt.ctx.cancel
        self.view.cost_usd = None
        rt.bus(SessionStarted(session_id=rt.session_id, model=rt.llm.settings.model, cwd=str(self.project_root),
                              mode=self.current_mode(), tools=[s.name for s in rt.registry.active()],
                              endpoint=endpoint_address(rt.llm.settings.base_url)))
        self.view.sync()   # the start's notices are on screen before the prompt

    def start(self, cont: bool, resume: str | None) -> None:
        if resume == "":
            resume = self._pick_session()
        self._resumed = bool(cont or resume)
        if not self.tty:
            self._adopt(open_runtime(self.loaded, self.project_root, self.approver, cont=cont, resume=resume))
            return

        def build() -> Runtime:
            self._make_parts(self._held_notes.append)
            return open_runtime(self.loaded, self.project_root, self.approver, cont=cont, resume=resume)
        self._opener = Opener(build)     # started once the prompt is drawn (``_tty_reader``)

    def _adopt(self, rt: Runtime) -> None:
        """The opened session becomes the REPL's: the banner, then its start's notices under it."""
        self._opener = None
        for line in self._held_notes:
            print_notice(self.console, line)
        self._held_notes.clear()
        self._banner(rt, resumed=self._resumed)
        self._use(rt)

    def _opened_while_prompting(self, app: Any) -> None:
        """On the prompt's loop once the thread is done: the banner above the prompt, or the
        build's error out of the prompt (as it would have come before it)."""
        from prompt_toolkit.application import run_in_terminal

        opener = self._opener
        if opener is None or not opener.done or not app.is_running or app.is_done:
            return                       # handled already, or by the first line (``rt``)
        if opener.error is not None:
            app.exit(exception=opener.error)
            return
        run_in_terminal(lambda: self._adopt(opener.result()) if self._opener is opener else None)

    def new_conversation(self) -> None:
        self._use(open_runtime(self.loaded, self.project_root, self.approver))

    def resume(self, session_id: str) -> None:
        chosen = session_id or self._pick_session()
        if chosen:
            self._use(open_runtime(self.loaded, self.project_root, self.approver, resume=chosen))
            print_notice(self.console, f"resumed session {self.rt.session_id} "
                                       f"({len(self.rt.agent.messages) - 1} messages)")

    def _pick_session(self) -> str | None:
        from axon_cli.session.conversation.transcript import list_sessions

        sessions = list_sessions(self.state_dir)[:20]
        if not sessions:
            print_notice(self.console, "no earlier sessions in this project")
            return None
        for n, s in enumerate(sessions, 1):
            first = " ".join(s.first_prompt.split())[:60]
            self.console.print(Text.assemble((f"{n:>2}. ", "bold"), (s.id, "cyan"), (f"  {s.started}  ", "dim"),
                                             (f"{s.turns} turns  ", "dim"), first))
        from axon_cli.app.ui.confirm import read_choice

        picked = read_choice("session number (Enter to cancel): ", "", allow_empty=True)
        if not picked.isdigit() or not 1 <= int(picked) <= len(sessions):
            return None
        return sessions[int(picked) - 1].id

    # -- mode and status --------------------------------------------------------------------
    def current_mode(self) -> str:
        rt = self._rt or (self._opener.built() if self._opener is not None else None)
        return rt.policy.mode if rt is not None else self.loaded.settings.mode

    def set_mode(self, mode: str) -> None:
        self._runtime_now().policy.set_mode(mode)

    def cycle_mode(self) -> None:
        """Shift-Tab: default → accept-edits → plan → default (the prompt line shows the mode)."""
        from axon_cli.app.ui.plan import next_mode

        self.set_mode(next_mode(self.current_mode()))

    def refresh_status(self) -> None:
        """Recompute the toolbar's text (between turns: the cost meter is not free)."""
        rt = self._rt
        if rt is None:
            return
        cost = rt.cost_usd()
        used = rt.llm.usage.last_prompt_tokens
        if not used:
            with contextlib.suppress(Exception):
                used = rt.context_tokens()
        self._status = (used, f"${cost:.4f}" if cost else "")

    def toolbar(self) -> str:
        """The bottom toolbar: model, the mode in force now (Shift-Tab changes it), context, cost."""
        if self._rt is None:
            return ""
        settings = self._rt.llm.settings
        status = toolbar_text(settings.model, self.current_mode(), self._status[0], settings.context_window,
                              self._status[1])
        return f" {status}  ·  /help  Alt-Enter newline  ·  Shift-Tab mode "


    def _banner(self, rt: Runtime, resumed: bool) -> None:
        head = Text.assemble(("axon ", "bold"), (__version__, "dim"), "  ", (rt.llm.settings.model, "cyan"),
                             ("  mode ", "dim"), (rt.policy.mode or rt.loaded.settings.mode, "bold"), ("  in ", "dim"),
                             (str(self.project_root), ""))
        self.console.print(head)
        if resumed:
            print_notice(self.console, f"resumed session {rt.session_id} ({len(rt.agent.messages) - 1} messages)")
        self.console.print(Text("/help for commands · Enter sends · Alt-Enter newline · @file attaches · "
                                "Ctrl-C stops · Ctrl-D exits", "dim"))

    # -- the loop ---------------------------------------------------------------------------
    def loop(self) -> None:
        from axon_cli.kernel.interrupts import ready

        if self.tty:
            ctrl_c_interrupts()
            read = self._tty_reader()  # ready() from inside the prompt, once Ctrl-C is the prompt's
        else:
            ready()                    # start-up is over: Ctrl-C is the turn's
            read = self._plain_reader
            _warm_up()
        interrupts, quiet = 0, False
        # From the first line on, the terminal stays quiet between prompts (each prompt takes raw mode
        # and puts this back): keys typed ahead, even in the moment before a prompt is up, wait for it
        # as typed. The user's own terminal mode comes back when the loop ends.
        with contextlib.ExitStack() as between_prompts:
            while self.running:
                self.refresh_status()
                try:
                    line = read()
                except KeyboardInterrupt:
                    interrupts += 1
                    if interrupts >= 2:
                        break
                    print_notice(self.console, "press Ctrl-C again or Ctrl-D to exit")
                    continue
                except EOFError:
                    break
                interrupts = 0
                if not quiet:
                    between_prompts.enter_context(no_echo(self.tty))
                    quiet = True
                try:
                    self.handle(line)
                except KeyboardInterrupt:
                    if self._rt is not None:   # else it came while waiting for the session to open
                        self.view.end_turn()
                    print_notice(self.console, "interrupted")

    def handle(self, line: str) -> None:
        text = line.strip()
        if not text:
            return
        if text.startswith("/") and not text.startswith("//"):
            from axon_cli.app.ui.slash import run_slash

            try:
                run_slash(self, text)
            except Exception as e:  # a slash command never ends the REPL with a traceback
                log.exception("slash command failed")
                print_error(self.console, f"{text.split()[0]} failed: {type(e).__name__}: {e}")
            return
        self.run_turn(line)

    def run_custom(self, command: CustomCommand, arguments: str) -> None:
        """``/NAME args``: the command's template, expanded, as this turn's message (with its model
        and allowed tools for the turn)."""
        from axon_cli.kernel.errors import AxonError
        from axon_cli.session.extend.command_scope import command_scope
        from axon_cli.session.extend.command_shell import shell_runner
        from axon_cli.session.extend.commands import expand_command

        print_notice(self.console, f"/{command.qualified} ({command.source})")
        with command_scope(self.rt.policy, self.rt.llm.settings, command):
            try:
                turn, notes = expand_command(command, arguments, self.project_root,
                                             shell_runner(self.rt.dispatcher, command))
            except AxonError as e:
                print_error(self.console, str(e))
                return
            for note in notes:
                print_notice(self.console, note)
            self.run_turn(turn)

    def run_turn(self, typed: str | UserTurn) -> None:
        """One turn: a typed line (its ``@path`` mentions attached here; a line that is a pasted image
        path brings that picture), or a turn built already."""
        from axon_cli.agent.loop.results import repair_history
        from axon_cli.app.ui.plan import after_plan, ended_with_plan
        from axon_cli.kernel.errors import AxonError
        from axon_cli.session.conversation.attach import attach_mentions, attach_pasted

        turn = typed
        if isinstance(typed, str):
            turn, notes = attach_pasted(typed, self.project_root) or attach_mentions(typed, self.project_root)
            for note in notes:
                print_notice(self.console, note)
        rt = self.rt
        started = time.monotonic()
        result = None
        try:                           # the terminal is quiet here: the loop holds it so between prompts
            result = rt.agent.run(turn)
        except KeyboardInterrupt:
            rt.ctx.cancel.set()
            repair_history(rt.agent)
            self.view.end_turn()
            self.console.print(Text("⏹ interrupted — your next message continues the conversation", "yellow"))
        except AxonError as e:
            self.view.end_turn()
            print_error(self.console, str(e))
        except Exception as e:
            log.exception("turn failed")
            self.view.end_turn()
            print_error(self.console, f"internal error: {type(e).__name__}: {e} (run with --debug for the log)")
        finally:
            self.view.end_turn()
            self.console.print()
            self.notifier.turn_ended(time.monotonic() - started)
        if result is not None and ended_with_plan(result, self.current_mode()):
            self.notifier.ring("axon has a plan for you to review")
            after_plan(self)        # proceed (a new turn in the mode chosen), keep planning, or revise

    def _tty_reader(self) -> Any:
        from prompt_toolkit.formatted_text import FormattedText

        from axon_cli.app.ui.input import ReplCompleter, make_session
        from axon_cli.kernel.interrupts import ready

        def names() -> list[tuple[str, str]]:
            from axon_cli.app.ui.slash import command_names

            # the custom commands are the session's: until it is open, the built-in ones
            return command_names(self if self._rt is not None else None)
        completer = ReplCompleter(self.project_root, names)
        session = make_session(self.state_dir / "history", completer, self.toolbar, self.cycle_mode)
        app = session.app

        def opened() -> None:            # on the opener's thread
            with contextlib.suppress(RuntimeError):      # the prompt's loop has ended: the first line adopts it
                loop = app.loop
                if loop is not None:
                    loop.call_soon_threadsafe(self._opened_while_prompting, app)
            _warm_up()

        def drawn(_: Any) -> None:       # every render; the first starts the session's opening
            if self._opener is not None:
                self._opener.start(opened)
        app.after_render += drawn
        # pre_run runs once prompt_toolkit has taken SIGINT (to its <sigint> key): a Ctrl-C before
        # it ends axon at once, one while the prompt is up is the prompt's, one after it (between
        # prompts, in a turn) is a KeyboardInterrupt; none lands where nothing would take it
        # (``kernel/interrupts.py``)
        return lambda: session.prompt(lambda: FormattedText(prompt_fragments(self.current_mode())),
                                      pre_run=ready)

    def _plain_reader(self) -> str:
        line = sys.stdin.readline()
        if not line:
            raise EOFError
        return line

    def close(self) -> None:
        opener, self._opener = self._opener, None
        if opener is not None and opener.started:   # left before the session was needed: closed all the same
            with contextlib.suppress(Exception):
                opener.result().close()
        if self._rt is not None:
            self.view.end_turn()
            self._rt.close()
        telemetry = getattr(self, "telemetry", None)     # none made when the session never opened
        if telemetry is not None:
            telemetry.close()            # flushed, at most [telemetry] timeout seconds


def run_repl(loaded: LoadedSettings, project_root: Path, cont: bool = False, resume: str | None = None) -> None:
    repl = Repl(loaded, project_root)
    try:
        repl.start(cont, resume)
        repl.loop()
    finally:
        repl.close()
    repl.console.print(Text("bye", "dim"))
