"""The GitHub Action's two helper steps (``action.yml`` at the repo root runs this file by path).

``task``: find the task — the ``prompt`` input, else the text after the trigger phrase in the
comment that fired the workflow, from a commenter whose association is allowed (and not a bot) —
and write it to a file; outputs ``found``, ``task-file`` and ``number`` (the issue or PR to answer).
``report EXIT_CODE``: read ``axon run --output-format json``'s result and write the outputs
``result``, ``is_error``, ``session_id``, ``exit-code`` and ``comment-file`` (the reply's Markdown).

Standard library only: it runs from the action's checkout, whatever axon version is installed.
Everything it reads arrives in environment variables and files, never in its command line.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
from pathlib import Path
from typing import Any

TASK_FILE = "axon-task.txt"
RESULT_FILE = "axon-result.json"
STDERR_FILE = "axon-stderr.txt"
COMMENT_FILE = "axon-comment.md"
RESULT_CHARS = 60_000                  # a GitHub comment holds 65 536 characters


def runner_temp() -> Path:
    return Path(os.environ.get("RUNNER_TEMP") or "/tmp")


def set_outputs(values: dict[str, str]) -> None:
    """Append to ``$GITHUB_OUTPUT``, each value in a heredoc block whose delimiter it cannot contain."""
    with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as out:
        for name, value in values.items():
            delimiter = f"axon_{secrets.token_hex(16)}"
            while delimiter in value:
                delimiter = f"axon_{secrets.token_hex(16)}"
            out.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def load_event() -> dict[str, Any]:
    path = os.environ.get("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        event = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return event if isinstance(event, dict) else {}


def thread_number(event: dict[str, Any]) -> str:
    for key in ("issue", "pull_request"):
        item = event.get(key)
        if isinstance(item, dict) and isinstance(item.get("number"), int):
            return str(item["number"])
    return ""


def comment_task(event: dict[str, Any], trigger: str, allowed: set[str]) -> tuple[str, str]:
    """(task, why not): the text after ``trigger`` in the event's comment, or why there is none."""
    comment = event.get("comment")
    if not isinstance(comment, dict) or not isinstance(comment.get("body"), str):
        return "", "the event has no comment and the prompt input is empty"
    user = comment.get("user")
    if isinstance(user, dict) and user.get("type") == "Bot":
        return "", "the comment is a bot's"
    association = str(comment.get("author_association", "NONE")).upper()
    if association not in allowed:
        return "", f"the commenter's association {association} is not in allowed-associations"
    body: str = comment["body"]
    at = body.find(trigger) if trigger else 0
    if at < 0:
        return "", f"the comment does not mention {trigger}"
    task = body[at + len(trigger):].strip()
    return (task, "") if task else ("", f"the comment has no task after {trigger}")


def find_task() -> int:
    event = load_event()
    prompt = os.environ.get("INPUT_PROMPT", "").strip()
    if prompt:
        task, why = prompt, ""
    else:
        allowed = {a.strip().upper() for a in os.environ.get("INPUT_ALLOWED_ASSOCIATIONS", "").split(",") if a.strip()}
        task, why = comment_task(event, os.environ.get("INPUT_TRIGGER", "@axon").strip(), allowed)
    if not task:
        print(f"axon: nothing to run: {why}")
        set_outputs({"found": "false", "task-file": "", "number": thread_number(event)})
        return 0
    task_file = runner_temp() / TASK_FILE
    task_file.write_text(task, encoding="utf-8")
    set_outputs({"found": "true", "task-file": str(task_file), "number": thread_number(event)})
    return 0


def read_result(exit_code: str) -> tuple[dict[str, Any], str]:
    """The run's JSON object, or one that says what went wrong (from its stderr's tail)."""
    temp = runner_temp()
    try:
        result = json.loads((temp / RESULT_FILE).read_text(encoding="utf-8"))
        if isinstance(result, dict) and isinstance(result.get("result"), str):
            return result, ""
    except (OSError, ValueError):
        pass
    try:
        stderr = (temp / STDERR_FILE).read_text(encoding="utf-8", errors="replace")[-2000:].strip()
    except OSError:
        stderr = ""
    return {"result": "", "is_error": True, "session_id": ""}, stderr or f"axon exited with code {exit_code}"


def comment_body(result: dict[str, Any], failure: str, exit_code: str) -> str:
    """The reply: the answer (or why there is none) and a footer naming the session."""
    if failure:
        return f"**axon failed** (exit code {exit_code}):\n\n```\n{failure}\n```\n"
    text = result["result"][:RESULT_CHARS]
    if result.get("is_error"):
        reason = "the turn limit was reached" if exit_code == "3" else f"exit code {exit_code}"
        text = f"**axon did not finish** ({reason}):\n\n{text}"
    usage = result.get("usage")
    tokens = usage.get("total_tokens", "?") if isinstance(usage, dict) else "?"
    return (f"{text}\n\n<sub>axon · session {result.get('session_id', '')} · {result.get('num_turns', '?')} "
            f"turns · {tokens} tokens</sub>\n")


def report(exit_code: str) -> int:
    result, failure = read_result(exit_code)
    comment_file = runner_temp() / COMMENT_FILE
    comment_file.write_text(comment_body(result, failure, exit_code), encoding="utf-8")
    set_outputs({"result": result["result"] or failure, "is_error": "true" if result.get("is_error") else "false",
                 "session_id": str(result.get("session_id") or ""), "exit-code": exit_code,
                 "comment-file": str(comment_file)})
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["task"]:
        return find_task()
    if argv[:1] == ["report"] and len(argv) == 2:
        return report(argv[1])
    print("usage: github_action.py task | report EXIT_CODE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
