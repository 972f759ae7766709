"""When the next reply can only sensibly be a tool call (the loop then asks the endpoint to constrain
it to one: ``agent/model/constrained.py``). Never for the reply that may be the final answer:

- the first reply of a turn whose task needs the project while none of what it needs is in view: a
  change of named project files, a command to run, or a question about named files or folders
  that are not attached, or about the project as a whole;
- the reply after a reminder that the answer was not grounded (it did not look, claimed work no
  call did, handed a step to the user, left the change undone or not in the files), or after a
  reply that only said what it would do, or an empty one;
- the reply after a call that failed on its own (an edit that did not match, a file not found,
  bad arguments), not one the user or the rules denied, nor a command that exited non-zero (its
  output may be the answer).

A tool whose very same call failed twice this turn is to be avoided by the next constrained reply
(``avoid``): the grammar must not leave the model only the repeat (``grounded_call``).

Plain conversation, "how do I …" and thanks are never constrained; in plan mode only looking is.
"""

from __future__ import annotations

import re
from collections import Counter

from axon_cli.agent.guidance.phrases import GENERAL_NAME, HOW_TO, NOT_A_REQUEST, PROJECT_QUESTION
from axon_cli.agent.guidance.reminders import AnswerChecks
from axon_cli.agent.guidance.task_files import file_mentions, inside_project
from axon_cli.agent.protocols.taskkind import is_change_task
from axon_cli.tools.dispatch import CallResult, ToolCall
from axon_cli.tools.registry import ToolRegistry

__all__ = ["CallNeed", "FORCING_CHECKS"]

FORCING_CHECKS = frozenset({"ground", "claim", "handed", "unfinished", "target"})
_RUN = re.compile(r"(?<![\w./-])(?:run|execute|rerun)(?![\w./-])", re.I)


class CallNeed:
    """One user turn's answer to "must the next reply be a call?"."""

    def __init__(self, checks: AnswerChecks, enabled: bool, planning: bool) -> None:
        self.enabled = enabled
        self.next = enabled and self._first(checks, planning)
        self.avoid: set[str] = set()               # tools the next constrained reply leaves out
        self._failed: Counter[str] = Counter()      # failures per call (its name and arguments)

    @staticmethod
    def _first(checks: AnswerChecks, planning: bool) -> bool:
        asked = checks.asked
        if not asked or NOT_A_REQUEST.search(asked) or HOW_TO.search(asked):
            return False
        if not planning and is_change_task(asked) and (checks.targets.targets or checks.moves.moves):
            return True
        if not planning and _RUN.search(asked):
            return True
        attached = set(checks.turn.attached_paths)
        general = {m.group(1) for m in GENERAL_NAME.finditer(asked)}
        for name in file_mentions(asked):
            path = inside_project(checks.ctx, name)
            if name not in general and path is not None and path.exists() and checks.ctx.relative(path) not in attached:
                return True
        return bool(PROJECT_QUESTION.search(asked)) and not attached

    def after_reply(self, reminded_by: str | None) -> None:
        """A reply without calls was sent back (``reminded_by``: the check or nudge that did), or not."""
        self.next = self.enabled and reminded_by is not None and \
            (reminded_by in FORCING_CHECKS or reminded_by == "nudge")

    def after_calls(self, calls: list[ToolCall], results: list[CallResult], registry: ToolRegistry) -> None:
        """A batch of calls came back: a call that failed on its own is to be fixed by the next one."""
        def failed_itself(result: CallResult) -> bool:
            spec = registry.get(result.name)
            return not result.ok and result.decision != "deny" and (spec is None or spec.category != "shell")
        by_id = {c.id: c for c in calls}
        failed = [r for r in results if failed_itself(r)]
        self.avoid = set()
        for result in failed:
            call = by_id.get(result.call_id)
            key = call.key if call is not None else result.name
            self._failed[key] += 1
            if self._failed[key] >= 2:
                self.avoid.add(result.name)
        self.next = self.enabled and bool(failed)

