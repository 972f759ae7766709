"""Replays the guidance corpus (``tests/guidance/corpus/*.json``) through the real answer checks and
measures each check's precision and recall.

A case is one user turn: the project's files (a named project of ``projects.json``, plus the case's
own ``files``), the user's task, the model's tool calls in order, its final answer, and ``fires``:
the checks that SHOULD send that answer back (every other check should stay quiet). The calls run
for real — the real tools through the real ``Dispatcher`` on a copy of the project (bash without a
sandbox) — so the checks see the results and the files exactly as a session would. A call marked
``"deny": true`` is answered as a denied call instead of running.

Each check is asked on its own (``AnswerChecks.evaluate`` and the nudger's ``check``), so one check
firing does not hide another; ``Guidance.after_reply`` is asked too, for the text a session would
send. Used by ``test_precision.py`` and ``bench/guidance_precision.py``.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parent / "corpus"
CHECKS = ("ground", "claim", "handed", "unfinished", "target", "unseen", "bare", "intent", "move")
MID_TURN = ("intent", "move")     # not answer checks: a nudge for a reply, a note on a failed call


@dataclass
class Case:
    id: str
    task: str
    answer: str
    calls: list[dict[str, Any]]
    fires: set[str]
    files: dict[str, str]
    hint: str = "native"
    asks_to_delete: list[str] = field(default_factory=list)   # paths the user asked to delete


@dataclass
class Outcome:
    case: Case
    fired: dict[str, str]          # check -> the text it would send
    sent: list[str]                # what the session's guidance would send, in order (to a third reply)


def load_cases(corpus: Path = CORPUS) -> list[Case]:
    """Every case of every corpus file (each a JSON list), with its project's files merged in."""
    projects: dict[str, dict[str, str]] = json.loads((corpus / "projects.json").read_text(encoding="utf-8"))
    cases: list[Case] = []
    for path in sorted(corpus.glob("*.json")):
        if path.name == "projects.json":
            continue
        for raw in json.loads(path.read_text(encoding="utf-8")):
            unknown = set(raw.get("fires", [])) - set(CHECKS)
            if unknown:
                raise ValueError(f"{path.name}: case {raw['id']} names unknown checks {sorted(unknown)}")
            files = {**projects[raw.get("project", "py")], **raw.get("files", {})}
            calls = [_call(c) for c in raw.get("calls", [])]
            cases.append(Case(id=f"{path.stem}/{raw['id']}", task=raw["task"], answer=raw["answer"],
                              calls=calls, fires=set(raw.get("fires", [])), files=files,
                              hint=raw.get("hint", "native"), asks_to_delete=raw.get("asks_to_delete", [])))
    ids = [c.id for c in cases]
    dupes = {i for i in ids if ids.count(i) > 1}
    if dupes:
        raise ValueError(f"duplicate case ids: {sorted(dupes)}")
    return cases


def _call(raw: list[Any] | dict[str, Any]) -> dict[str, Any]:
    """A call as written in the corpus: ``[name, args]`` or ``[name, args, {"deny": true}]``."""
    if isinstance(raw, dict):
        return raw
    return {"name": raw[0], "args": raw[1] if len(raw) > 1 else {}, **(raw[2] if len(raw) > 2 else {})}


def replay(case: Case, workdir: Path) -> Outcome:
    """Run the case's calls for real in ``workdir`` and ask every check about its answer."""
    from axon_cli.agent.guidance.guide import Guidance
    from axon_cli.agent.guidance.nudges import NATIVE_HINT, TEXT_HINT, Nudger
    from axon_cli.agent.guidance.reminders import AnswerChecks
    from axon_cli.kernel.turn import UserTurn
    from axon_cli.machinery.sandbox.probe import SandboxStatus
    from axon_cli.settings.config import Settings
    from axon_cli.tools.dispatch import CallResult, Dispatcher, ToolCall
    from axon_cli.tools.registry import ToolRegistry
    from axon_cli.tools.spec import ToolContext

    root = workdir / "proj"
    for rel, text in case.files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    root.mkdir(exist_ok=True)
    registry = ToolRegistry.with_builtins(SandboxStatus("off", "off", "the corpus replay"))
    ctx = ToolContext(project_root=root, state_dir=workdir / "state", session_id="corpus",
                      settings=Settings(sandbox="off"), registry=registry)
    dispatcher = Dispatcher(registry, ctx)
    hint = TEXT_HINT if case.hint == "text" else NATIVE_HINT
    turn = UserTurn.of(case.task)
    guide = Guidance(registry, ctx)
    guide.new_turn(turn, hint)
    checks = AnswerChecks(turn, hint, registry, ctx)
    nudger = Nudger(hint, True, registry, ctx)
    notes: list[str] = []
    for i, step in enumerate(case.calls, 1):
        call = ToolCall(id=f"call_{i}", name=step["name"], arguments=json.dumps(step.get("args", {})))
        if step.get("deny"):
            result = CallResult(call.id, call.name, "Permission denied: the user said no", False, decision="deny")
        else:
            result = dispatcher.dispatch(call)
        checks.saw([call], [result])
        sent_back = guide.after_calls([call], [result])[0].content
        if sent_back != result.content:     # a failed call that carries the task's move
            notes.append(sent_back.removeprefix(result.content))
        nudger.saw_calls()
    fired = {name: text for name in CHECKS if name not in MID_TURN and (text := checks.evaluate(name, case.answer))}
    if notes:
        fired["move"] = "\n".join(notes)
    if (nudge := nudger.check(case.answer)) is not None:
        fired["intent"] = nudge
    sent = [text for _ in range(3) if (text := guide.after_reply(case.answer))]
    return Outcome(case, fired, sent)


def replay_all(cases: list[Case] | None = None) -> list[Outcome]:
    outcomes = []
    for case in cases if cases is not None else load_cases():
        with tempfile.TemporaryDirectory(prefix="axon-corpus-") as tmp:
            outcomes.append(replay(case, Path(tmp)))
    return outcomes


@dataclass
class Score:
    check: str
    tp: int = 0
    fp: int = 0
    fn: int = 0
    false_fires: list[str] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0


def score(outcomes: list[Outcome]) -> dict[str, Score]:
    scores = {name: Score(name) for name in CHECKS}
    for out in outcomes:
        for name, s in scores.items():
            fired, should = name in out.fired, name in out.case.fires
            if fired and should:
                s.tp += 1
            elif fired:
                s.fp += 1
                s.false_fires.append(out.case.id)
            elif should:
                s.fn += 1
                s.misses.append(out.case.id)
    return scores


def table(scores: dict[str, Score], cases: int) -> str:
    lines = [f"guidance checks over {cases} corpus cases", "",
             f"{'check':<11} {'fires':>5} {'right':>5} {'wrong':>5} {'missed':>6} {'precision':>9} {'recall':>6}"]
    for s in scores.values():
        lines.append(f"{s.check:<11} {s.tp + s.fp:>5} {s.tp:>5} {s.fp:>5} {s.fn:>6} {s.precision:>9.3f} {s.recall:>6.3f}")
    return "\n".join(lines)
