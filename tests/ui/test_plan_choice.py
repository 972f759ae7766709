"""The chat side of plan mode, in-process: Shift-Tab's cycle, which turns end with a plan, the choice
after a plan (each key, a typed change, Ctrl-C) and the approval message the model gets."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from axon_cli.agent.loop.results import RunResult
from axon_cli.app.ui.plan import (
    after_plan,
    approval_message,
    ask_to_proceed,
    ended_with_plan,
    next_mode,
    prompt_fragments,
)


@pytest.mark.parametrize("mode,expected", [("default", "accept-edits"), ("accept-edits", "plan"), ("plan", "default"),
                                           ("auto", "default"), ("yolo", "default"), ("read-only", "default")])
def test_shift_tab_cycles_default_accept_edits_plan(mode: str, expected: str) -> None:
    assert next_mode(mode) == expected


def test_only_an_answer_in_plan_mode_is_a_plan() -> None:
    assert ended_with_plan(RunResult("1. edit a.txt", "final", 2), "plan")
    assert not ended_with_plan(RunResult("1. edit a.txt", "final", 2), "default")
    assert not ended_with_plan(RunResult("interrupted by user", "interrupted", 1), "plan")
    assert not ended_with_plan(RunResult("stopped", "max_turns", 50), "plan")
    assert not ended_with_plan(RunResult("boom", "error", 1, error="boom"), "plan")
    assert not ended_with_plan(RunResult("  ", "final", 1), "plan")


def _ask(answer: str | BaseException) -> tuple[tuple[str | None, str], str]:
    out = io.StringIO()
    console = Console(file=out, width=120, force_terminal=False)
    seen: list[tuple[str, str]] = []

    def read(prompt: str, keys: str) -> str:
        seen.append((prompt, keys))
        if isinstance(answer, BaseException):
            raise answer
        return answer

    got = ask_to_proceed(console, read)
    assert seen == [("> ", "123")]
    return got, out.getvalue()


@pytest.mark.parametrize("answer,expected", [
    ("1", ("default", "")), ("2", ("accept-edits", "")), ("3", (None, "")), ("n", (None, "")),
    ("use a helper function instead", (None, "use a helper function instead")),
    (KeyboardInterrupt(), (None, "")), (EOFError(), (None, "")),
])
def test_the_choice_after_a_plan(answer: str | BaseException, expected: tuple[str | None, str]) -> None:
    got, shown = _ask(answer)
    assert got == expected
    assert "Proceed with this plan?" in shown
    assert ("plan approved" in shown) == (expected[0] is not None)


def test_the_approval_message_names_the_mode_and_says_to_carry_it_out() -> None:
    text = approval_message("accept-edits")
    assert "approved your plan" in text and "accept-edits" in text and "Carry out the plan" in text
    assert "{" not in text


class _Repl:
    def __init__(self) -> None:
        self.console = Console(file=io.StringIO(), width=120)
        self.modes: list[str] = []
        self.turns: list[object] = []

    def set_mode(self, mode: str) -> None:
        self.modes.append(mode)

    def run_turn(self, typed: object) -> None:
        self.turns.append(typed)


@pytest.mark.parametrize("answer,modes,sent", [
    ("2", ["accept-edits"], [approval_message("accept-edits")]),
    ("3", [], []),
    ("smaller steps please", [], ["smaller steps please"]),
])
def test_after_a_plan_the_mode_switches_before_the_approval_is_sent(answer: str, modes: list[str],
                                                                   sent: list[str]) -> None:
    repl = _Repl()
    after_plan(repl, lambda _prompt, _keys: answer)
    assert repl.modes == modes
    assert [getattr(t, "text", t) for t in repl.turns] == sent


def test_the_prompt_line_names_every_mode_but_default() -> None:
    assert "".join(text for _, text in prompt_fragments("default")) == "› "
    assert "".join(text for _, text in prompt_fragments("plan")) == "plan › "
    assert "".join(text for _, text in prompt_fragments("yolo")) == "yolo › "
