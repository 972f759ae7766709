"""Every guidance check that sends an answer back is measured over the corpus (``corpus/*.json``,
replayed with real tools by ``replay.py``): a check ships only with precision >= 0.98 on it. Over
the same corpus, no text the guidance would send names a command that deletes or overwrites
something the user did not ask to delete, and the corpus quotes none of the local-model bench's
chores. ``python bench/guidance_precision.py`` prints the same table."""

from __future__ import annotations

import json
import re

import pytest

from axon_cli.shell.analyze import analyze
from tests.guidance.replay import CHECKS, CORPUS, Outcome, load_cases, replay_all, score, table

MIN_PRECISION = 0.98
MIN_CASES = 200


@pytest.fixture(scope="module")
def outcomes() -> list[Outcome]:
    return replay_all(load_cases())


def test_the_corpus_is_large_and_labels_every_check() -> None:
    cases = load_cases()
    assert len(cases) >= MIN_CASES
    for name in CHECKS:                              # each check has cases where it should fire...
        assert sum(name in c.fires for c in cases) >= 3, name
    assert sum(not c.fires for c in cases) >= MIN_CASES // 3     # ...and many where nothing should


def test_every_check_is_precise_on_the_corpus(outcomes: list[Outcome]) -> None:
    scores = score(outcomes)
    print("\n" + table(scores, len(outcomes)))
    for s in scores.values():
        assert s.tp >= 3, f"{s.check} fires rightly on only {s.tp} cases: it is not measured"
        assert s.precision >= MIN_PRECISION, f"{s.check}: precision {s.precision:.3f}; wrong on {s.false_fires}"


_COMMAND_WORDS = re.compile(r"\b(?:rm|rmdir|unlink|shred|truncate|mv)\s+\S|\bgit\s+(?:clean|reset|checkout\s+--|"
                            r"restore)\b|-delete\b")


def named_commands(text: str) -> list[str]:
    """Shell commands a message names: JSON "command" values, code blocks, backtick spans."""
    commands = [m.group(1) for m in re.finditer(r'"command":\s*"((?:[^"\\]|\\.)*)"', text)]
    commands += [line for block in re.findall(r"```[^\n]*\n(.*?)```", text, re.S) for line in block.splitlines()]
    commands += re.findall(r"`([^`\n]+)`", text)
    return [json.loads(f'"{c}"') if "\\" in c else c for c in commands if c.strip()]


def destroyed(text: str) -> list[str]:
    """What the commands a message names would delete or overwrite; any destructive word outside
    a recognisable command counts as itself."""
    found: list[str] = []
    for command in named_commands(text):
        result = analyze(command)
        found += [p for u in result.units for p in (*u.deletes, *u.overwrites)]
        found += [] if found else (["unparsed: " + command] if not result.parsed else result.destructive_reasons)
    rest = text
    for command in named_commands(text):
        rest = rest.replace(command, "")
    found += _COMMAND_WORDS.findall(rest)
    return found


def test_the_detector_finds_planted_commands() -> None:
    assert destroyed('Do it now: call bash with {"command": "rm app.py"}.') == ["app.py"]
    assert destroyed("run:\n```bash\ngit clean -fdx\n```") != []
    assert destroyed("Use `echo > notes.txt` to empty it") == ["notes.txt"]
    assert destroyed("then just rm -rf build") != []
    assert destroyed('call read_file with {"path": "app.py"}') == []


def test_no_reminder_names_a_deletion_the_user_did_not_ask_for(outcomes: list[Outcome]) -> None:
    named_rm = 0
    for out in outcomes:
        for text in [*out.fired.values(), *out.sent]:
            gone = destroyed(text)
            named_rm += bool(gone)
            unasked = [p for p in gone if p not in out.case.asks_to_delete]
            assert not unasked, f"{out.case.id}: {text!r} would destroy {unasked}"
    assert named_rm >= 3     # the rule was exercised: asked-for deletions are named, as the step to take


def test_the_corpus_quotes_no_bench_chore() -> None:
    from tests.guidance.test_guidance_no_chores import WORDS

    for path in sorted(CORPUS.glob("*.json")):
        text = path.read_text(encoding="utf-8")
        quoted = sorted(w for w in WORDS if re.search(rf"(?<![\w.]){re.escape(w)}(?![\w])", text))
        assert not quoted, f"{path.name} quotes the local-model bench's chores: {quoted}"
