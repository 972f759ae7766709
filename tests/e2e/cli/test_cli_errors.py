"""User errors through the real ``axon``: one line on stderr, the right exit code, no traceback."""

from __future__ import annotations

import json
import socket

from tests.fakeserver import Reply, error_reply, text_reply, tool_reply


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fast_retries(project, attempts: int = 5) -> None:
    cfg = project / ".axon" / "config.toml"
    cfg.parent.mkdir(exist_ok=True)
    cfg.write_text(f"retry_base_delay = 0.01\nmax_attempts = {attempts}\n")


def one_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("axon: error:")]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


def test_dead_endpoint(run_axon, project):
    fast_retries(project, attempts=3)
    r = run_axon("run", "hi", env={"OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1"})
    assert r.code == 1
    line = one_error_line(r.stderr)
    assert "failed after 3 attempts" in line and "cannot connect" in line


def test_wrong_key(server, run_axon):
    server.add(error_reply(401, "Incorrect API key provided"))
    r = run_axon("run", "hi")
    assert r.code == 1
    line = one_error_line(r.stderr)
    assert "rejected the API key" in line and "OPENAI_API_KEY" in line
    assert len(server.requests) == 1, "a 401 is not retried"


def test_missing_key_for_hosted_endpoint_says_what_to_set(run_axon):
    r = run_axon("run", "hi", env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    assert r.code == 1
    assert "export OPENAI_API_KEY=" in one_error_line(r.stderr)


def test_local_endpoint_needs_no_key(server, run_axon):
    server.add(text_reply("no key needed"))
    r = run_axon("run", "hi", env={"OPENAI_API_KEY": ""})
    assert r.code == 0, r.stderr
    assert r.stdout == "no key needed\n"
    headers = {k.lower(): v for k, v in server.requests[0].headers.items()}
    assert headers["authorization"] == "Bearer not-needed"


def test_bad_config_file(run_axon, project):
    cfg = project / ".axon" / "config.toml"
    cfg.parent.mkdir()
    cfg.write_text("max_turns = -3\n")
    r = run_axon("run", "hi")
    assert r.code == 1
    line = one_error_line(r.stderr)
    assert str(cfg) in line and "max_turns" in line


def test_usage_errors_exit_2(run_axon):
    r = run_axon("run", "hi", "--output-format", "yaml")
    assert r.code == 2 and "--output-format" in r.stderr
    r = run_axon("run")
    assert r.code == 2 and "no task" in r.stderr
    r = run_axon("run", "hi", "--max-turns", "0")
    assert r.code == 2


def test_task_from_stdin(server, run_axon):
    server.add(text_reply("read it"))
    r = run_axon("run", "-", input="the task from stdin\n")
    assert r.code == 0, r.stderr
    assert server.requests[0].conversation[-1]["content"] == "the task from stdin\n"


def test_max_turns_exit_3(server, run_axon):
    server.add(*[tool_reply(("nope", {"i": i})) for i in range(3)])
    r = run_axon("run", "loop", "--max-turns", "2", "--output-format", "json")
    assert r.code == 3
    obj = json.loads(r.stdout)
    assert obj["is_error"] is True and obj["num_turns"] == 2
    assert len(server.requests) == 2


def test_length_cut_text_is_continued(server, run_axon):
    server.add(text_reply("The first half, ", finish_reason="length"), text_reply("and the second half."))
    r = run_axon("run", "long answer")
    assert r.code == 0, r.stderr
    assert r.stdout == "The first half, and the second half.\n"
    second = server.requests[1].messages
    assert second[-2] == {"role": "assistant", "content": "The first half, "}
    assert "cut off" in second[-1]["content"]


def test_same_failing_call_not_run_a_fourth_time(server, run_axon):
    server.add(*[tool_reply(("ghost", {"x": 1})) for _ in range(4)], text_reply("giving up"))
    r = run_axon("run", "t")
    assert r.code == 0, r.stderr
    results = [req.messages[-1]["content"] for req in server.requests[1:5]]
    assert all("unknown tool" in c for c in results[:3])
    assert "looping" in results[3] and "3 times" in results[3]


def test_tool_call_ids_answered_once_in_order(server, run_axon):
    server.add(tool_reply(("ghost_a", {}), ("ghost_b", "not json"), ("ghost_c", {})), text_reply("done"))
    r = run_axon("run", "t")
    assert r.code == 0, r.stderr
    msgs = server.requests[1].messages
    assistant = msgs[-4]
    ids = [c["id"] for c in assistant["tool_calls"]]
    assert [m["tool_call_id"] for m in msgs[-3:]] == ids
    assert "not valid JSON" in msgs[-2]["content"]


def test_empty_stream_without_finish_is_retried(server, run_axon, project):
    fast_retries(project)
    server.add(Reply(content="x", cut_after=1), text_reply("fine"))
    r = run_axon("run", "t")
    assert r.code == 0, r.stderr
    assert r.stdout == "fine\n"


def test_reused_call_ids_are_made_unique(server, run_axon):
    # Some local servers send the same id ("call_0") every turn, or twice in one reply.
    server.add(tool_reply(("ghost", {"a": 1}), ("ghost", {"a": 2}), call_ids=["call_0", "call_0"]),
               tool_reply(("ghost", {"a": 3}), call_ids=["call_0"]), text_reply("done"))
    r = run_axon("run", "t")
    assert r.code == 0, r.stderr
    final = server.requests[2].messages
    ids = [c["id"] for m in final if m.get("tool_calls") for c in m["tool_calls"]]
    answered = [m["tool_call_id"] for m in final if m["role"] == "tool"]
    assert len(ids) == 3 and len(set(ids)) == 3
    assert answered == ids
    assert all("unknown tool 'ghost'" in m["content"] for m in final if m["role"] == "tool")


def test_init_creates_state_and_is_idempotent(run_axon, project):
    import stat
    import subprocess

    r = run_axon("init")
    assert r.code == 0 and "initialised" in r.stdout
    perms = project / ".axon" / "permissions.toml"
    assert 'deny = ["read_file(.env*)"' in perms.read_text()
    assert stat.S_IMODE(perms.stat().st_mode) & 0o044, "readable like any project file, not 0600"
    perms.write_text('allow = ["bash(ls)"]\n')
    again = run_axon("init")
    assert again.code == 0 and "already initialised" in again.stdout
    assert perms.read_text() == 'allow = ["bash(ls)"]\n'
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / ".axon" / "audit.jsonl").write_text("{}\n")
    ignored = subprocess.run(["git", "check-ignore", "-q", ".axon/audit.jsonl"], cwd=project)
    kept = subprocess.run(["git", "check-ignore", "-q", ".axon/permissions.toml"], cwd=project)
    assert ignored.returncode == 0 and kept.returncode == 1
