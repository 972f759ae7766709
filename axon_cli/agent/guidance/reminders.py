"""Reminders for final answers that are not grounded in what happened in this user turn.

Seven checks, each at most once per turn, on an answer that has no tool calls:

- *look first*: no tool has been called yet in this turn, and the task names a file or directory
  that exists in the project (or asks about the project's files): the reminder is the next step,
  the exact ``read_file``/``list_files`` call, in the protocol's form.
- *claimed work*: the answer says something was created, changed, deleted, fixed … (or run) while no
  call of that kind succeeded in this turn: nothing was changed yet, do it now.
- *tools handed to the user*: the answer tells the user to call a tool ("you can call read_file")
  or, for a task that asks for something to be done, to run "the following command": the model
  has the tools, the user does not.
- *unfinished change*: the task asks for a change (a clause opening with delete, create, fix, write
  …) and no call that may change something succeeded in this turn, and none was denied (a denial
  is the model's to explain, not to retry).
- *not in the files*: something changed, but the files the task's change names do not show it —
  the file to delete still exists (it was emptied), the file to change is as it was (``targets.py``).
- *unseen value*: a question (not a count) answered with a value — a number, a quoted string — that
  no tool result of the turn shows (``values.py``): answer from the results or look again.
- *no answer*: the whole answer is "The task is complete." — say what the result is.

In plan mode (a turn that must change nothing and end with a plan) only *look first*, *unseen value*
and *no answer* apply: the others would tell the model to make the change.

Plain conversation ("hi", "what is a monad") and honest answers after real successful calls are
never reminded. The wording is generic (``kernel/prompts/guidance_reminders.md``): no check knows about
any particular task.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from axon_cli.agent.guidance.moves import MoveSteps
from axon_cli.agent.guidance.phrases import (
    BARE_DONE,
    CLAIM_DONE,
    CLAIM_MINE,
    CODE_CHANGE_VERBS,
    GENERAL_NAME,
    HOW_TO,
    NO_CHANGE_NEEDED,
    NOT_A_REQUEST,
    PROJECT_QUESTION,
    REPORTS_OUTPUT,
    RUN_WORDS,
    SAYS_MISSING,
    SAYS_NO_CHANGE,
    TO_USER_COMMAND,
    asks_back,
    asks_for_value,
)
from axon_cli.agent.guidance.task_files import DELETE_VERBS, TaskTargets, file_mentions
from axon_cli.agent.guidance.values import Seen, unseen_values
from axon_cli.agent.protocols.callfacts import read_only_call
from axon_cli.agent.protocols.interface import TEXT_HINT
from axon_cli.agent.protocols.taskkind import CHANGE_TASK, QUESTION, is_change_task
from axon_cli.kernel.prompts import load_sections
from axon_cli.kernel.turn import UserTurn
from axon_cli.policy.paths import sensitive_reason
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext

__all__ = ["AnswerChecks", "CHECKS", "file_mentions", "GROUND", "GROUND_LIST", "CLAIMED",
           "HANDED_OVER", "UNFINISHED", "NOT_THERE", "UNSEEN", "NO_ANSWER", "CLAIM_MINE", "CLAIM_DONE", "CHANGE_TASK"]


_TEXT = load_sections("guidance_reminders.md")
GROUND = _TEXT["ground"]
GROUND_LIST = _TEXT["ground-list"]
CLAIMED = _TEXT["claimed"]
UNFINISHED = _TEXT["unfinished"]
NO_ANSWER = _TEXT["no-answer"]
NOT_THERE = _TEXT["not-there"]
UNSEEN = _TEXT["unseen"]
HANDED_OVER = _TEXT["handed-over"]
ANY_TOOL = _TEXT["any-tool"]

CHECKS = ("ground", "claim", "handed", "unfinished", "target", "unseen", "bare")
PLANNING = ("ground", "unseen", "bare")     # in plan mode: the checks that never push for a change


class AnswerChecks:
    """One user turn's grounding checks; ``check`` answers with a reminder or None."""

    def __init__(self, task: UserTurn | str, hint: str | None, registry: ToolRegistry, ctx: ToolContext,
                 planning: bool = False) -> None:
        self.turn = UserTurn.of(task)
        self.checks = PLANNING if planning else CHECKS   # plan mode changes nothing: no "do it now"
        # as the model read it, the words then the attached files: what the claim, handed-over and
        # unseen-value checks read (a value shown in an attached file was seen)
        self.message = self.turn.render()
        self.text_protocol = hint == TEXT_HINT
        self.hint = hint or ""
        self.registry = registry
        self.ctx = ctx
        self.called = False          # any tool call in this turn, successful or not
        self.changed = False         # a successful call that may change something
        self.denied = False          # a call the user or the rules did not allow
        self.ran = False             # a successful shell command
        self.sent: set[str] = set()  # which reminders were sent this turn
        self.reason = ""             # why the last reminder was sent, for a Notice event
        self.asked = self.turn.text.strip()   # the user's words, without attached files
        self.targets = TaskTargets(self.asked, ctx)   # the files it names, as they were
        # the renames and moves it asks for, and the exact call that makes each (a change task only)
        self.moves = MoveSteps(self.asked, ctx, registry, self._call, is_change_task(self.asked) and not planning)
        self.seen = Seen()           # what this turn's tool results said

    def saw(self, calls: list[ToolCall], results: list[CallResult]) -> None:
        self.called = self.called or bool(calls)
        self.denied = self.denied or any(r.decision == "deny" for r in results)
        by_id = {c.id: c for c in calls}
        for result in results:
            call = by_id.get(result.call_id)
            spec = self.registry.get(result.name)
            self.seen.add(result.content)
            if not result.ok or call is None or spec is None:
                continue
            if spec.category == "shell":
                self.ran = True
            failed = spec.category == "shell" and result.display.get("exit_code") not in (0, None)
            if not read_only_call(self.registry, call) and not failed:   # `rm x` that failed changed nothing
                self.changed = True

    def check(self, answer: str) -> str | None:
        """The first reminder (in ``CHECKS`` order) not yet sent this turn that fits ``answer``, or None
        (in plan mode only the ``PLANNING`` checks)."""
        for name in self.checks:
            if name in self.sent:
                continue
            text = self.evaluate(name, answer)
            if text:
                self.sent.add(name)
                return text
        return None

    def evaluate(self, name: str, answer: str) -> str | None:
        """What the check ``name`` would send back for ``answer``, or None; it records nothing (the
        corpus measures each check on its own this way)."""
        if not answer.strip() or not self.registry.active():
            return None
        return getattr(self, f"_{name}")(answer)  # type: ignore[no-any-return]

    # -- the checks ------------------------------------------------------------------------------
    def _ground(self, answer: str) -> str | None:
        if self.called or NOT_A_REQUEST.search(self.asked) or asks_back(answer):
            return None          # thanks name files without asking; a question back waits for the user
        attached = self.turn.attached_paths      # @path attachments are already looked at
        general = {m.group(1) for m in GENERAL_NAME.finditer(self.asked)}   # "what is a Makefile for?"
        names = [n for n in file_mentions(self.asked) if n not in attached and n not in general]
        path = next(iter(self._existing(names)), None)
        if path is not None and self.registry.is_active("read_file") and self.ctx.resolve(path).is_file():
            self.reason = f"the model answered without looking; reminded it to read {path} first"
            return GROUND.format(path=path, call=self._call("read_file", {"path": path}))
        about_project = path is not None or (PROJECT_QUESTION.search(self.asked) and not attached)
        if about_project and self.registry.is_active("list_files"):
            args = {"path": path} if path is not None else {}
            self.reason = "the model answered without looking; reminded it to look at the project first"
            return GROUND_LIST.format(call=self._call("list_files", args))
        return None

    def _claim(self, answer: str) -> str | None:
        """A claim of a change with no successful change, or of a run with no successful command.
        Impersonal forms ("… has been added") count only for a task that is not a question: an
        answer about a project's history says such things truthfully."""
        if "```" in answer and not self.targets.targets and not file_mentions(self.asked):
            return None     # "I added type hints" to the code in the reply itself
        claims = [*CLAIM_MINE.finditer(answer)]
        if not QUESTION.search(self.message.strip()):
            claims += CLAIM_DONE.finditer(answer)
        what = next((m.group(0).strip() for m in claims
                     if not (self.ran if RUN_WORDS.search(m.group(0)) else self.changed)), None)
        if what is None:
            return None
        self.reason = "the model claimed work that no tool call did; told it nothing was changed yet"
        return CLAIMED.format(what=what, hint=self.hint or ANY_TOOL)

    def _handed(self, answer: str) -> str | None:
        names = [s.name for s in self.registry.active()]
        tool = re.search(r"\b(?:you|user)\s+(?:can|could|should|may|need to|must)\s+(?:call|use|run|invoke)\s+"
                         r"(?:the\s+)?[`'\"]?(" + "|".join(map(re.escape, names)) + r")\b", answer, re.I) \
            if names else None
        command = TO_USER_COMMAND.search(answer) and not QUESTION.search(self.asked) and not HOW_TO.search(self.asked)
        if not tool and not command:
            return None
        self.reason = "the model told the user to do a step itself; reminded it that it has the tools"
        return HANDED_OVER.format(hint=self.hint or ANY_TOOL)

    def _unfinished(self, answer: str) -> str | None:
        wanted = CHANGE_TASK.search(self.asked)
        if self.changed or self.denied or wanted is None or not is_change_task(self.asked):
            return None     # a change the user or the rules denied is the model's to explain, not to retry
        unmet = self.targets.unmet()
        gone = unmet is not None and unmet[1] in DELETE_VERBS and SAYS_MISSING.search(answer)
        if (NO_CHANGE_NEEDED.search(answer) and not gone) or asks_back(answer):
            return None     # "there is nothing to remove", "which file?": the model's to say (unless
                            # it says a file to delete is missing, and the file is there)
        if not self.targets.targets and (wanted.group(1).lower() not in CODE_CHANGE_VERBS or "```" in answer):
            return None     # "write a regex", "create an example": answered in the reply itself
        self.reason = "the task asks for a change and nothing was changed; told the model to do it"
        hint = self._step(unmet[1], unmet[2]) if unmet else self.moves.call() or self.hint or ANY_TOOL
        return UNFINISHED.format(verb=wanted.group(1).lower(), hint=hint)

    def _target(self, answer: str) -> str | None:
        """Something changed, but not what the task names: the file to delete is still there (it was
        emptied), the file to change is as it was."""
        if self.denied or not is_change_task(self.asked):
            return None
        if not self.changed and ("unfinished" not in self.sent or SAYS_NO_CHANGE.search(answer)):
            return None     # nothing changed at all: the *unfinished* check's case (then this one, once,
                            # unless the model said plainly that it changed nothing)
        unmet = self.targets.unmet()
        if unmet is None:
            return None
        fact, verb, path = unmet
        self.reason = f"the task's change is not in the files ({fact}); told the model to do it"
        return NOT_THERE.format(fact=fact, verb=verb, hint=self._step(verb, path))

    def _step(self, verb: str, path: str) -> str:
        """The next step for a change the files do not show yet: the exact ``rm`` call for a file to
        delete, reading the file to change (then editing it), else the protocol's general hint."""
        if verb in ("rename", "move") and (step := self.moves.call()) is not None:
            return step
        if verb in DELETE_VERBS and self.registry.is_active("bash"):
            return self._call("bash", {"command": TaskTargets.delete_command(path)})
        if verb not in ("create", "write") and self.registry.is_active("read_file"):
            if self.ctx.file_state.get(self.ctx.resolve(path)) is not None and self.registry.is_active("edit_file"):
                return _TEXT["step-edit"].format(path=path)
            return _TEXT["step-read"].format(call=self._call("read_file", {"path": path}))
        return self.hint or ANY_TOOL

    def _unseen(self, answer: str) -> str | None:
        """A question answered with a value that no tool result of this turn shows (``values``)."""
        if not self.called or not asks_for_value(self.asked):
            return None
        values = unseen_values(answer, self.message, self.seen, output=bool(REPORTS_OUTPUT.search(self.asked)))
        if not values:
            return None
        self.reason = f"the answer's value ({values[0]}) is in no tool result; asked the model to check it"
        return UNSEEN.format(value=values[0])

    def _bare(self, answer: str) -> str | None:
        if not BARE_DONE.match(answer.strip()):
            return None
        self.reason = "the model said only that the task is complete; asked for the result itself"
        return NO_ANSWER

    # -- helpers ---------------------------------------------------------------------------------
    def _existing(self, names: list[str]) -> list[str]:
        """The names that are files or directories inside the project."""
        root = self.ctx.project_root
        out: list[str] = []
        for name in names:
            try:
                path = self.ctx.resolve(name)
                inside = path.is_relative_to(root) and path.exists() and path != root
            except (OSError, ValueError):
                inside = False
            if inside and not sensitive_reason(self.ctx.relative(path)) and not self._seen(path):
                out.append(name.rstrip("/") or name)   # never .env, nor a file read and unchanged since
        return out

    def _seen(self, path: Path) -> bool:
        """Read earlier in the session (an earlier turn) and not changed since."""
        record = self.ctx.file_state.get(path)
        try:
            return record is not None and path.is_file() and record.mtime_ns == path.stat().st_mtime_ns
        except OSError:
            return False

    def _call(self, name: str, args: dict[str, Any]) -> str:
        if self.text_protocol:
            return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"
        return _TEXT["native-call"].format(name=name, args=json.dumps(args))
