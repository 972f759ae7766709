"""The Action's helper (``axon_cli/app/fleet/github_action.py``) in-process: which comments start a run,
outputs that survive any value, and a run that left no JSON still reported; and the fleet package
stays out of axon's own imports."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from axon_cli.app.fleet import github_action
from tests.e2e.fleet.action_runner import parse_outputs

PACKAGE = Path(github_action.__file__).resolve().parents[1]
MEMBERS = {"OWNER", "MEMBER"}


def comment(body: str, association: str = "MEMBER") -> dict:
    return {"comment": {"body": body, "author_association": association, "user": {"type": "User"}}}


@pytest.mark.parametrize("body,task", [
    ("@axon fix the build", "fix the build"),
    ("Thanks!\n\n@axon   add tests\nfor parse()\n", "add tests\nfor parse()"),
    ("@axon", ""),
    ("no mention here", ""),
])
def test_task_is_the_text_after_the_trigger(body, task):
    assert github_action.comment_task(comment(body), "@axon", MEMBERS)[0] == task


def test_association_outside_the_list_is_refused():
    task, why = github_action.comment_task(comment("@axon go", "NONE"), "@axon", MEMBERS)
    assert task == "" and "NONE" in why


def test_outputs_survive_newlines_and_delimiter_lookalikes(tmp_path, monkeypatch):
    out = tmp_path / "out"
    monkeypatch.setenv("GITHUB_OUTPUT", str(out))
    value = "line one\naxon_deadbeef\nEOF\nname=evil\n"
    github_action.set_outputs({"result": value, "is_error": "false"})
    assert parse_outputs(out.read_text()) == {"result": value, "is_error": "false"}


def test_a_run_without_json_is_reported_with_its_stderr(tmp_path, monkeypatch):
    monkeypatch.setenv("RUNNER_TEMP", str(tmp_path))
    monkeypatch.setenv("GITHUB_OUTPUT", str(tmp_path / "out"))
    (tmp_path / github_action.STDERR_FILE).write_text("axon: --mode must be one of …\n")
    assert github_action.report("2") == 0
    outputs = parse_outputs((tmp_path / "out").read_text())
    assert outputs["is_error"] == "true" and outputs["exit-code"] == "2"
    assert "--mode must be" in outputs["result"]
    assert Path(outputs["comment-file"]).read_text().startswith("**axon failed** (exit code 2)")


def test_a_turn_limit_says_so_in_the_comment():
    body = github_action.comment_body({"result": "partial", "is_error": True, "session_id": "s1", "num_turns": 3,
                                       "usage": {"total_tokens": 10}}, "", "3")
    assert body.startswith("**axon did not finish** (the turn limit was reached)") and "session s1" in body


def test_the_event_file_may_be_missing_or_broken(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(tmp_path / "event.json"))
    assert github_action.load_event() == {}
    (tmp_path / "event.json").write_text("[1, 2]")
    assert github_action.load_event() == {}
    (tmp_path / "event.json").write_text(json.dumps({"pull_request": {"number": 12}}))
    assert github_action.thread_number(github_action.load_event()) == "12"


def test_nothing_in_axon_imports_the_fleet_package():
    importer = re.compile(r"^\s*(?:from|import)\s+axon_cli\.fleet\b", re.MULTILINE)
    offenders = [str(p) for p in PACKAGE.rglob("*.py")
                 if "fleet" not in p.relative_to(PACKAGE).parts and importer.search(p.read_text())]
    assert offenders == []
