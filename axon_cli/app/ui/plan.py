"""Plan mode in chat: Shift-Tab's cycle of modes, and what happens once a turn in plan mode ends.

A turn in plan mode ends with the model's plan (shown as the answer); the REPL then asks, as a small
numbered choice, whether to carry it out in ``default`` or ``accept-edits`` mode, or keep planning.
Proceeding switches the mode and sends the approval message (``kernel/prompts/plan_mode.md``) as the next
user turn of the same session. The agent loop never asks: this is the frontend's question.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from rich.console import Console
from rich.text import Text

if TYPE_CHECKING:
    from axon_cli.agent.loop.results import RunResult
    from axon_cli.kernel.turn import UserTurn

__all__ = ["CYCLE", "PROCEED", "next_mode", "prompt_fragments", "ended_with_plan", "ask_to_proceed",
           "approval_message", "after_plan"]

CYCLE = ("default", "accept-edits", "plan")             # Shift-Tab, as Claude Code cycles its modes
PROCEED = {"1": "default", "2": "accept-edits"}          # the choices after a plan; 3 keeps planning

Reader = Callable[[str, str], str]


class PlanRepl(Protocol):
    """What ``after_plan`` uses of the REPL."""

    console: Console

    def set_mode(self, mode: str) -> None: ...

    def run_turn(self, typed: str | UserTurn) -> None: ...


def next_mode(mode: str) -> str:
    """The mode Shift-Tab switches to: the next of ``CYCLE``; from a mode outside it, ``default``."""
    return CYCLE[(CYCLE.index(mode) + 1) % len(CYCLE)] if mode in CYCLE else "default"


def prompt_fragments(mode: str) -> list[tuple[str, str]]:
    """The prompt line's styled text: ``› ``, after the mode's name when it is not ``default``."""
    style = "ansiyellow bold" if mode == "plan" else "ansimagenta bold"
    return [*([] if mode == "default" else [(style, mode + " ")]), ("ansicyan bold", "› ")]


def ended_with_plan(result: RunResult, mode: str) -> bool:
    """Whether the turn ended with an answer (the plan) while the mode was plan."""
    return mode == "plan" and result.stop_reason == "final" and bool(result.result.strip())


def ask_to_proceed(console: Console, read: Reader) -> tuple[str | None, str]:
    """Ask whether to carry out the plan: (the mode chosen to do it in, "") to proceed, or (None, what
    the user typed instead of a number: the next message) to keep planning — also on Ctrl-C, Ctrl-D
    or Esc, with no message."""
    console.print(Text.assemble(("Proceed with this plan? ", "bold"), ("1", "bold green"), " yes, in default mode "
                                "(edits ask) · ", ("2", "bold green"), " yes, in accept-edits mode · ",
                                ("3", "bold yellow"), " no, keep planning\n",
                                ("or type what to change in the plan, then Enter", "dim")))
    try:
        choice = read("> ", "123").strip()
    except (KeyboardInterrupt, EOFError):
        choice = "3"
    mode = PROCEED.get(choice)
    if mode is not None:
        console.print(Text(f"✓ plan approved; mode: {mode}", "green"))
        return mode, ""
    console.print(Text("keeping plan mode", "yellow"))
    return None, "" if choice in ("3", "n") else choice


def approval_message(mode: str) -> str:
    """The user message that tells the model its plan was approved and to carry it out."""
    from axon_cli.kernel.prompts import load_sections

    return load_sections("plan_mode.md")["approved"].format(mode=mode)


def after_plan(repl: PlanRepl, read: Reader | None = None) -> None:
    """A turn ended with a plan: carry it out (the mode chosen, then the approval as the next turn of
    the same session), keep planning, or send what the user typed to change the plan."""
    if read is None:
        from axon_cli.app.ui.confirm import read_choice

        read = read_choice
    mode, feedback = ask_to_proceed(repl.console, read)
    if mode is not None:
        repl.set_mode(mode)
        from axon_cli.kernel.turn import UserTurn

        repl.run_turn(UserTurn(approval_message(mode)))
    elif feedback:
        repl.run_turn(feedback)
