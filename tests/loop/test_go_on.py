"""The loop's "go on?" decision, asked directly: every reply ends in a ``SendBack`` (the model is asked
again, with what) or an ``EndTurn`` (the turn's result), in one order — protocol feedback, a reply
cut by the output limit, axon's own note echoed, the answer guidance, the user's Stop hooks; after
tool calls: an interrupt, a hook that halts, the guidance's refusals."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from axon_cli.agent.loop.agent import CONTINUE_PROMPT, MAX_CONTINUATIONS, EndTurn, GoOn, SendBack
from axon_cli.agent.loop.echo import ECHOED, ECHOED_AGAIN, Notes
from axon_cli.agent.loop.guidance_seam import NoGuide
from axon_cli.agent.loop.seams import PromptVerdict
from axon_cli.agent.model.turns import AssistantTurn
from axon_cli.agent.protocols.builtin import AutoProtocol


class Hooks:
    """The user's turn hooks as a script: what ``Stop`` answers each time, and whether one halted."""

    def __init__(self, stops: list[str | None] | None = None, halt: str | None = None) -> None:
        self.stops, self.halt, self.asked = list(stops or []), halt, []   # asked: the `again` flags seen

    def prompt_submitted(self, prompt: str) -> PromptVerdict:
        return PromptVerdict()

    def about_to_stop(self, answer: str, again: bool) -> str | None:
        self.asked.append(again)
        return self.stops.pop(0) if self.stops else None

    def halted(self) -> str | None:
        return self.halt


class Guide(NoGuide):
    def __init__(self, nudge: str | None = None, stop: str | None = None) -> None:
        super().__init__()
        self.nudge, self.stop = nudge, stop

    def after_reply(self, answer: str) -> str | None:
        self.reason = "asked again" if self.nudge else ""
        return self.nudge

    def stop_reason(self) -> str | None:
        return self.stop


def decide(go_on: GoOn, turn: AssistantTurn, turns: int = 1) -> SendBack | EndTurn:
    with pytest.raises((SendBack, EndTurn)) as outcome:
        go_on.after_reply(turn, turns)
    assert isinstance(outcome.value, SendBack | EndTurn)
    return outcome.value


def make(hooks: Hooks | None = None, guide: NoGuide | None = None, notes: Notes | None = None) -> GoOn:
    return GoOn(AutoProtocol(), notes or Notes(), guide or NoGuide(), hooks, threading.Event())


def user(content: str) -> dict[str, Any]:
    return {"role": "user", "content": content}


def test_a_reply_without_calls_is_the_final_answer() -> None:
    end = decide(make(), AssistantTurn(content="42"), turns=3)
    assert isinstance(end, EndTurn)
    assert (end.result.result, end.result.stop_reason, end.result.num_turns, end.result.error) == ("42", "final", 3, None)


def test_text_calls_that_could_not_be_used_go_back_to_the_model_before_anything_else() -> None:
    hooks = Hooks(stops=["keep going"])
    back = decide(make(hooks), AssistantTurn(content='<tool_call>{"name": "read_file", bad', call_errors=["bad JSON"]))
    assert isinstance(back, SendBack) and back.messages and back.notice == ""
    assert hooks.asked == []          # the Stop hook was not asked about a reply that was not an answer


def test_a_reply_cut_by_the_output_limit_is_continued_and_its_parts_joined() -> None:
    go_on = make()
    for i in range(MAX_CONTINUATIONS):
        back = decide(go_on, AssistantTurn(content=f"part{i} ", finish_reason="length"))
        assert isinstance(back, SendBack) and back.messages == [user(CONTINUE_PROMPT)]
    end = decide(go_on, AssistantTurn(content="last", finish_reason="length"))    # the limit: taken as it is
    assert isinstance(end, EndTurn)
    assert end.result.result == "".join(f"part{i} " for i in range(MAX_CONTINUATIONS)) + "last"


def test_a_call_between_cut_parts_starts_the_answer_afresh() -> None:
    go_on = make()
    decide(go_on, AssistantTurn(content="stale ", finish_reason="length"))
    go_on.calls_made()
    end = decide(go_on, AssistantTurn(content="fresh"))
    assert isinstance(end, EndTurn) and end.result.result == "fresh"


def test_axons_own_note_echoed_as_the_answer_is_sent_back_once_then_the_turn_stops_as_an_error() -> None:
    notes = Notes()
    note = "Your reply was cut off. Continue the task and make the next tool call now."
    notes.add(user(note))
    go_on = make(notes=notes)
    back = decide(go_on, AssistantTurn(content=note))
    assert isinstance(back, SendBack) and back.messages == [user(ECHOED)] and back.notice
    end = decide(go_on, AssistantTurn(content=note))
    assert isinstance(end, EndTurn) and end.result.stop_reason == "error" and end.result.error == ECHOED_AGAIN


def test_the_guidance_nudges_with_a_notice_or_stops_the_turn_as_an_error() -> None:
    back = decide(make(guide=Guide(nudge="Answer from the tool results.")), AssistantTurn(content="let me run it"))
    assert isinstance(back, SendBack) and back.messages == [user("Answer from the tool results.")]
    assert back.notice == "asked again"
    end = decide(make(guide=Guide(stop="no progress")), AssistantTurn(content="x"))
    assert isinstance(end, EndTurn) and (end.result.stop_reason, end.result.error) == ("error", "no progress")


def test_a_stop_hook_sends_the_agent_back_and_is_told_it_did_so_the_next_time() -> None:
    hooks = Hooks(stops=["run the tests first", None])
    go_on = make(hooks)
    back = decide(go_on, AssistantTurn(content="done"))
    assert isinstance(back, SendBack) and back.messages == [user("run the tests first")]
    end = decide(go_on, AssistantTurn(content="done, tests pass"))
    assert isinstance(end, EndTurn) and end.result.result == "done, tests pass"
    assert hooks.asked == [False, True]


def test_after_calls_the_turn_goes_on_unless_interrupted_halted_or_stopped_by_the_guidance() -> None:
    make().after_calls(1)             # nothing stops it: returns

    go_on = make()
    go_on.cancel.set()
    with pytest.raises(EndTurn) as end:
        go_on.after_calls(2)
    assert (end.value.result.stop_reason, end.value.result.num_turns) == ("interrupted", 2)

    with pytest.raises(EndTurn) as end:
        make(Hooks(halt="blocked by policy")).after_calls(1)
    assert (end.value.result.result, end.value.result.stop_reason) == ("blocked by policy", "final")
    assert "blocked by policy" in end.value.notice

    with pytest.raises(EndTurn) as end:
        make(guide=Guide(stop="the same refused call again")).after_calls(1)
    assert end.value.result.error == "the same refused call again"
