"""The three parts of the guidance that change what a small model can emit and what it sees (issue 36),
through the real ``axon run`` and the scripted server on 127.0.0.1 (a local endpoint: guidance on):

- attach: the small project files a task names arrive with it, and count as read;
- constrain: a reply that can only sensibly be a call is asked to be one (``response_format``),
  in llama-cpp-python's form after a refusal of the OpenAI one, and never again once a server
  ignores it; never for conversation, never for the answer after work that succeeded;
- whole_file: a small file is rewritten whole; a rewrite that loses most of it is refused.

Asserts are on what was sent (the request bodies) and on the files on disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.fakeserver import Recorded, error_reply, text_reply, tool_reply


def call_json(name: str, args: dict[str, Any]) -> str:
    """A reply as a server that honours the constraint makes it: one call, as JSON text."""
    return json.dumps({"name": name, "arguments": args})


def first_user(request: Recorded) -> str:
    return next(m["content"] for m in request.conversation if m["role"] == "user")


def constrained_to(request: Recorded) -> set[str] | None:
    """The tool names a request's ``response_format`` allows, or None when it has none."""
    fmt = request.body.get("response_format")
    if fmt is None:
        return None
    schema = fmt["json_schema"]["schema"] if fmt["type"] == "json_schema" else fmt["schema"]
    return {b["properties"]["name"]["const"] for b in schema.get("anyOf", [schema])}


def config(project: Path, text: str) -> None:
    (project / ".axon").mkdir(exist_ok=True)
    (project / ".axon" / "config.toml").write_text(text)


# -- attach ----------------------------------------------------------------------------------------
def test_a_named_file_arrives_with_the_task_and_counts_as_read(server, run_axon, project):
    (project / "notes.md").write_text("teh quick fox\n")
    server.add(text_reply(call_json("write_file", {"path": "notes.md", "content": "the quick fox\n"})),
               text_reply("Fixed the typo."))
    r = run_axon("run", "fix the typo in notes.md", "--yes")
    assert r.code == 0, r.stderr
    assert '<file path="notes.md">\nteh quick fox\n</file>' in first_user(server.requests[0])
    assert (project / "notes.md").read_text() == "the quick fox\n"      # no read_file call was needed


def test_what_read_file_would_not_read_unasked_is_never_attached(server, run_axon, project, tmp_path):
    (tmp_path / "outside.txt").write_text("CANARY-OUTSIDE\n")
    (project / "link.txt").symlink_to(tmp_path / "outside.txt")
    (project / ".env").write_text("API_TOKEN=CANARY-ENV\n")
    (project / "secret.txt").write_text("CANARY-DENIED\n")
    (project / "big.txt").write_text("x" * 9000 + "CANARY-BIG\n")
    (project / "plain.txt").write_text("CONTROL-PLAIN\n")
    (project / ".axon").mkdir()
    (project / ".axon" / "permissions.toml").write_text('deny = ["read_file(secret.txt)"]\n')
    server.add(*[text_reply("They differ.")] * 4)
    r = run_axon("run", "compare plain.txt, link.txt, .env, secret.txt, big.txt and ../outside.txt")
    assert r.code == 0, r.stderr
    sent = json.dumps([q.body for q in server.requests])
    assert "CONTROL-PLAIN" in sent                # the same run attaches what it may
    for canary in ("CANARY-OUTSIDE", "CANARY-ENV", "CANARY-DENIED", "CANARY-BIG"):
        assert canary not in sent, canary


def test_guidance_off_attaches_nothing_and_constrains_nothing(server, run_axon, project):
    (project / "notes.md").write_text("teh quick fox\n")
    config(project, 'guidance = "off"\n')
    server.add(text_reply("I can't see it."))
    r = run_axon("run", "fix the typo in notes.md", "--yes")
    assert r.code == 0, r.stderr
    assert "teh quick fox" not in first_user(server.requests[0])
    assert constrained_to(server.requests[0]) is None


# -- constrain -------------------------------------------------------------------------------------
def test_a_change_task_is_asked_for_a_call_and_the_answer_after_it_is_free(server, run_axon, project):
    (project / "notes.md").write_text("teh quick fox\n")
    server.add(text_reply(call_json("write_file", {"path": "notes.md", "content": "the quick fox\n"})),
               text_reply("Fixed the typo."))
    r = run_axon("run", "fix the typo in notes.md", "--yes", "--output-format", "json")
    assert r.code == 0, r.stderr
    first = server.requests[0]
    allowed = constrained_to(first)
    assert allowed is not None and {"read_file", "write_file", "edit_file", "bash"} <= allowed
    assert "tool_search" not in allowed and first.body["tool_choice"] == "required"
    assert first.body["response_format"]["type"] == "json_schema"
    assert constrained_to(server.requests[1]) is None       # the final answer is never constrained
    assert (project / "notes.md").read_text() == "the quick fox\n"
    assert json.loads(r.stdout)["result"] == "Fixed the typo."


def test_after_a_refusal_of_the_openai_form_llama_cpp_pythons_form_is_sent(server, run_axon, project):
    (project / "notes.md").write_text("teh quick fox\n")
    server.add(error_reply(422, "body.response_format.type: Input should be 'text' or 'json_object'"),
               text_reply(call_json("write_file", {"path": "notes.md", "content": "the quick fox\n"})),
               text_reply("Fixed."))
    r = run_axon("run", "fix the typo in notes.md", "--yes")
    assert r.code == 0, r.stderr
    retry = server.requests[1].body["response_format"]
    assert retry["type"] == "json_object" and "write_file" in constrained_to(server.requests[1])  # type: ignore[operator]
    assert (project / "notes.md").read_text() == "the quick fox\n"


def test_a_server_that_ignores_the_constraint_is_not_asked_again(server, run_axon, project):
    (project / "a.py").write_text("x = 1\n" * 2000)          # too large to attach
    server.add(text_reply("It sets x."), text_reply("It sets x to 1."), text_reply("unused"))
    r = run_axon("run", "what does a.py do?")
    assert r.code == 0, r.stderr
    assert constrained_to(server.requests[0]) is not None          # not in view: look first
    assert "read_file" in server.requests[1].messages[-1]["content"]   # reminded to look...
    assert constrained_to(server.requests[1]) is None               # ...but not asked again


def test_a_call_that_failed_is_followed_by_a_constrained_reply(server, run_axon, project):
    (project / "a.py").write_text("x = 1\n" * 2000)
    server.add(tool_reply(("edit_file", {"path": "a.py", "old_string": "y = 2", "new_string": "y = 3"})),
               tool_reply(("read_file", {"path": "a.py", "limit": 3})), text_reply("It sets x to 1, many times."),
               text_reply("It sets x to 1, many times."))
    r = run_axon("run", "what does a.py do?", "--yes")
    assert r.code == 0, r.stderr
    assert [constrained_to(q) is not None for q in server.requests[:3]] == [True, True, False]


def test_conversation_and_how_to_questions_are_never_constrained(server, run_axon, project):
    for task in ("hi", "how do I run the tests?"):
        server.add(text_reply("Hello!"))
        r = run_axon("run", task)
        assert r.code == 0, r.stderr
        assert constrained_to(server.requests[-1]) is None, task


# -- whole file ------------------------------------------------------------------------------------
APP = "".join(f"line_{i} = {i}\n" for i in range(12)) + "PORT = 8080\n"


def test_a_rewrite_that_loses_most_of_a_small_file_is_refused(server, run_axon, project):
    (project / "app.py").write_text(APP)
    server.add(tool_reply(("read_file", {"path": "app.py"})),
               tool_reply(("write_file", {"path": "app.py", "content": "PORT = 8081\n"})),
               *[text_reply("I could not change it.")] * 3)
    r = run_axon("run", "change the port in app.py to 8081", "--yes")
    assert r.code == 0, r.stderr
    assert (project / "app.py").read_text() == APP        # the rest of the file is still there
    refused = server.requests[2].messages[-1]
    assert refused["role"] == "tool" and refused["content"].startswith("Error")


def test_the_whole_new_content_of_a_small_file_is_written(server, run_axon, project):
    (project / "app.py").write_text(APP)
    server.add(tool_reply(("write_file", {"path": "app.py", "content": APP.replace("8080", "8081")})),
               text_reply("The port is 8081 now."))
    r = run_axon("run", "change the port in app.py to 8081", "--yes")
    assert r.code == 0, r.stderr
    assert (project / "app.py").read_text() == APP.replace("8080", "8081")


def test_an_edit_that_misses_a_small_file_points_to_the_whole_file(server, run_axon, project):
    (project / "app.py").write_text(APP)
    server.add(tool_reply(("edit_file", {"path": "app.py", "old_string": "HOST = 1", "new_string": "HOST = 2"})),
               *[text_reply("I could not change it.")] * 3)
    r = run_axon("run", "change the port in app.py to 8081", "--yes")
    assert r.code == 0, r.stderr
    assert (project / "app.py").read_text() == APP
    result = server.requests[1].messages[-1]
    assert result["role"] == "tool" and "write_file" in result["content"]
