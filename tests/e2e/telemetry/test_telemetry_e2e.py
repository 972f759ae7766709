"""End-to-end: the real ``axon run`` exporting spans and counters to a local OTLP/HTTP collector."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.conftest import axon_command
from tests.e2e.telemetry.collector import Collector
from tests.fakeserver import Reply, error_reply, text_reply, tool_reply

CONTENT = "file-content-canary-5d1e"
SECRET = "ghp_" + "Z7xq3N8vLw2Rk5Tb9Yc4Md6Pf1Gh0Js2Ku8A"      # a planted GitHub token
ARGUMENT = "argument-canary-91c4"
USAGE = [(1200, 30, 1000), (1500, 25, 1400), (1700, 12, None)]   # prompt, completion, cached (None: not said)


@pytest.fixture
def collector() -> Iterator[Collector]:
    c = Collector()
    yield c
    c.close()


def _script(server, project) -> None:  # type: ignore[no-untyped-def]
    (project / "notes.txt").write_text(f"{CONTENT}\ntoken={SECRET}\n")
    replies = [tool_reply(("read_file", {"path": "notes.txt"})),
               tool_reply(("bash", {"command": f"echo {ARGUMENT}"})),
               text_reply("all done")]
    for reply, (prompt, completion, cached) in zip(replies, USAGE, strict=True):
        reply.usage = {"prompt_tokens": prompt, "completion_tokens": completion,
                       "total_tokens": prompt + completion}
        reply.cached_tokens = cached
    server.add(*replies)


def test_one_run_exports_the_span_tree_with_tokens_and_no_content(server, run_axon, project, collector):
    _script(server, project)
    r = run_axon("run", "read notes.txt and echo", env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url,
                                                       "OTEL_RESOURCE_ATTRIBUTES": "team=core"})
    assert r.code == 0, r.stderr
    assert r.stdout == "all done\n"
    spans = collector.spans()
    by_name: dict[str, list] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)
    assert {k: len(v) for k, v in by_name.items()} == {"axon.run": 1, "invoke_agent axon": 1, "chat test-model": 3,
                                                       "execute_tool read_file": 1, "execute_tool bash": 1}
    (root,), (turn,) = by_name["axon.run"], by_name["invoke_agent axon"]
    tools = by_name["execute_tool read_file"] + by_name["execute_tool bash"]
    assert root.parent_id == b"" and turn.parent_id == root.span_id
    assert all(s.parent_id == turn.span_id for s in by_name["chat test-model"] + tools)
    assert len({s.trace_id for s in spans}) == 1
    requests = sorted(by_name["chat test-model"], key=lambda s: s.attributes["axon.request.index"])
    for span, (prompt, completion, cached) in zip(requests, USAGE, strict=True):
        assert span.attributes["gen_ai.request.model"] == "test-model"
        assert span.attributes["gen_ai.usage.input_tokens"] == prompt
        assert span.attributes["gen_ai.usage.output_tokens"] == completion
        assert span.attributes.get("axon.usage.cached_tokens") == cached
    calls = {s.attributes["axon.tool.name"]: s.attributes for s in tools}
    assert set(calls) == {"read_file", "bash"}
    for attrs in calls.values():
        assert attrs["axon.tool.decision"] == "allow" and attrs["axon.tool.decided_by"] == "mode"
        assert attrs["axon.tool.outcome"] == "ok" and attrs["axon.tool.output_bytes"] > 0
        assert attrs["axon.tool.duration_ms"] >= 0
    resource = collector.resources()[0]
    assert resource["service.name"] == "axon" and resource["team"] == "core" and resource["service.version"]
    everything = json.dumps([s.attributes for s in spans] + collector.resources())
    for leaked in (CONTENT, SECRET, SECRET[:12], ARGUMENT, "notes.txt", "read notes.txt"):
        assert leaked not in everything
    counters = collector.counters()
    tokens = {p["kind"]: v for p, v in counters["axon.tokens"]}
    assert tokens == {"input": sum(u[0] for u in USAGE), "output": sum(u[1] for u in USAGE), "cached": 2400}
    assert sum(v for p, v in counters["axon.decisions"] if p["decision"] == "allow") == 2


def test_a_denied_call_is_an_outcome_not_a_leak(server, run_axon, project, collector):
    server.add(tool_reply(("bash", {"command": f"rm -rf ./{ARGUMENT}"})), text_reply("gave up"))
    r = run_axon("run", "clean", env={"OTEL_TRACES_EXPORTER": "otlp", "OTEL_METRICS_EXPORTER": "none",
                                      "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": collector.url + "/v1/traces"})
    assert r.code == 0, r.stderr
    (call,) = [s for s in collector.spans() if s.name == "execute_tool bash"]
    assert call.attributes["axon.tool.outcome"] == "denied"
    assert call.attributes["axon.tool.final_decision"] == "deny"
    assert call.attributes["axon.tool.decided_by"] in ("mode", "user")
    assert ARGUMENT not in json.dumps(call.attributes)
    assert collector.bodies("/v1/metrics") == []        # OTEL_METRICS_EXPORTER=none


def _imports(env: dict[str, str], project) -> str:  # type: ignore[no-untyped-def]
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "axon_cli", "run", "hi"], cwd=project,
                          env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stderr


def test_telemetry_off_imports_no_sdk_and_sends_nothing(server, project, axon_env, collector):
    server.add(text_reply("one"), text_reply("two"), text_reply("three"))
    off = _imports(axon_env, project)
    assert "opentelemetry" not in off
    disabled = _imports({**axon_env, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url, "OTEL_SDK_DISABLED": "true"},
                        project)
    assert "opentelemetry" not in disabled and collector.posts == []
    on = _imports({**axon_env, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url}, project)
    assert "opentelemetry.sdk" in on and collector.bodies("/v1/traces")   # the same check sees it when on


def test_config_false_wins_over_the_env_variables(server, run_axon, project, collector):
    config = project.parent / "home" / ".config" / "axon"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("[telemetry]\nenabled = false\n")
    server.add(text_reply("quiet"))
    r = run_axon("run", "x", env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url})
    assert r.code == 0, r.stderr
    assert collector.posts == []


def test_project_telemetry_table_counts_only_in_a_trusted_folder(server, run_axon, project, collector):
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text(f'[telemetry]\nenabled = true\nendpoint = "{collector.url}"\n')
    server.add(text_reply("untrusted"), text_reply("trusted"))
    r = run_axon("run", "x")
    assert r.code == 0, r.stderr
    assert collector.posts == []                          # an untrusted repository cannot send data out
    r = run_axon("run", "x", env={"AXON_TRUST": "1"})
    assert r.code == 0, r.stderr
    assert [s.name for s in collector.spans()].count("axon.run") == 1


def test_unreachable_collector_never_blocks_the_run(server, run_axon, project):
    import socket

    silent = socket.socket()                                 # accepts connections, never answers
    silent.bind(("127.0.0.1", 0))
    silent.listen(16)
    config = project.parent / "home" / ".config" / "axon"
    config.mkdir(parents=True)
    (config / "config.toml").write_text("[telemetry]\nenabled = true\ntimeout = 1.0\n"
                                        f'endpoint = "http://127.0.0.1:{silent.getsockname()[1]}"\n')
    _script(server, project)
    started = time.monotonic()
    try:
        r = run_axon("run", "read and echo", timeout=60)
    finally:
        silent.close()
    assert r.code == 0, r.stderr
    assert r.stdout == "all done\n" and "Traceback" not in r.stderr
    assert time.monotonic() - started < 45      # not held by a collector that never answers


def test_missing_sdk_is_one_line_and_the_run_goes_on(server, run_axon, project, tmp_path):
    blocker = tmp_path / "no-otel-sdk"          # the SDK as if not installed: importing it fails
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\n"
        "class Blocker:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.startswith('opentelemetry.sdk'):\n"
        "            raise ImportError('no ' + name)\n"
        "sys.meta_path.insert(0, Blocker())\n")
    server.add(text_reply("fine"))
    r = run_axon("run", "x", env={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9", "PYTHONPATH": str(blocker)})
    assert r.code == 0, r.stderr
    assert r.stdout == "fine\n"
    notes = [line for line in r.stderr.splitlines() if "telemetry" in line]
    assert len(notes) == 1 and "pip install 'axon-cli[telemetry]'" in notes[0], r.stderr


def _tree(collector: Collector) -> dict[str, list]:
    found: dict[str, list] = {}
    for span in collector.spans():
        found.setdefault(span.name, []).append(span)
    return found


def test_ctrl_c_mid_request_still_flushes_the_spans(server, axon_env, project, collector):
    import signal

    (project / "notes.txt").write_text("x\n")
    server.add(tool_reply(("read_file", {"path": "notes.txt"})), Reply(content="never sent", hang=60))
    proc = subprocess.Popen([*axon_command(), "run", "go"], cwd=project, stdin=subprocess.DEVNULL,
                            env={**axon_env, "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        server.wait_for_requests(2)                 # the second request hangs: Ctrl-C lands during it
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130
    tree = _tree(collector)
    assert len(tree["axon.run"]) == 1 and len(tree["execute_tool read_file"]) == 1
    assert len(tree["chat test-model"]) == 2
    assert tree["invoke_agent axon"][0].attributes["axon.turn.stop_reason"] == "interrupted"


def test_an_error_exit_still_flushes_with_the_failed_request_marked(server, run_axon, collector):
    server.add(*[error_reply(500, "boom", retry_after="0") for _ in range(5)])
    r = run_axon("run", "x", env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url})
    assert r.code == 1
    tree = _tree(collector)
    (request,) = tree["chat test-model"]
    assert request.status == 2                      # STATUS_CODE_ERROR
    assert request.attributes["error.type"] == "500"       # the GenAI conventions' error.type: the status
    (agent,) = tree["invoke_agent axon"]
    assert agent.attributes["axon.turn.stop_reason"] == "error" and agent.attributes["error.type"] == "500"
    (point,) = collector.histograms()["gen_ai.client.operation.duration"].points
    assert point[0]["error.type"] == "500" and point[1] == 1
    assert "boom" not in json.dumps([s.attributes for spans in tree.values() for s in spans])


def test_chat_sends_one_session_span_per_conversation(server, run_axon, collector):
    server.add(text_reply("first"), text_reply("second"), text_reply("third"))
    r = run_axon("chat", input="one\ntwo\n/new\nthree\n/exit\n", env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url})
    assert r.code == 0, r.stderr
    tree = _tree(collector)
    sessions = tree["axon.session"]
    assert len(sessions) == 2 and len({s.trace_id for s in sessions}) == 2
    turns = tree["invoke_agent axon"]
    assert sorted(sum(t.parent_id == s.span_id for t in turns) for s in sessions) == [1, 2]
    assert len(tree["chat test-model"]) == 3 and "axon.run" not in tree


def test_doctor_says_whether_telemetry_is_on_and_config_hides_its_headers(run_axon, project):
    config = project.parent / "home" / ".config" / "axon"
    config.mkdir(parents=True)
    assert "telemetry: off (" in run_axon("doctor").stdout
    (config / "config.toml").write_text('[telemetry]\nenabled = true\nendpoint = "http://127.0.0.1:9"\n'
                                        f'headers = {{ "Authorization" = "Bearer {SECRET}" }}\n')
    r = run_axon("doctor")
    assert "telemetry: on — traces otlp, metrics otlp, OTLP http/protobuf to http://127.0.0.1:9" in r.stdout
    assert SECRET not in r.stdout and "'Authorization': '****'" in r.stdout


def test_spans_and_metrics_follow_the_genai_semantic_conventions_point_by_point(server, run_axon, project, collector):
    """A run with a tool call that works, one that fails and a final answer, decoded from OTLP and held
    against the spec's span names, kinds, required and recommended attributes, metrics and buckets
    (gen-ai-spans.md, gen-ai-agent-spans.md, gen-ai-metrics.md)."""
    (project / "a.txt").write_text("hello\n")
    replies = [tool_reply(("read_file", {"path": "a.txt"})), tool_reply(("read_file", {"path": "missing.txt"})),
               text_reply("done")]
    for reply, (prompt, completion) in zip(replies, [(100, 10), (120, 12), (140, 14)], strict=True):
        reply.usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    server.add(*replies)
    r = run_axon("run", "read a.txt and missing.txt", "--output-format", "json",
                 env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url})
    assert r.code == 0, r.stderr
    session_id = json.loads(r.stdout)["session_id"]
    tree = _tree(collector)
    internal, client = 1, 3
    (agent,) = tree["invoke_agent axon"]
    assert agent.kind == internal
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert agent.attributes["gen_ai.provider.name"] == "openai"
    assert agent.attributes["gen_ai.agent.name"] == "axon" and agent.attributes["gen_ai.agent.version"]
    assert agent.attributes["gen_ai.conversation.id"] == session_id
    assert agent.attributes["gen_ai.request.model"] == "test-model"
    assert (agent.attributes["gen_ai.usage.input_tokens"], agent.attributes["gen_ai.usage.output_tokens"]) == (360, 36)
    chats = sorted(tree["chat test-model"], key=lambda s: s.attributes["axon.request.index"])
    assert len(chats) == 3
    for chat, finish in zip(chats, ["tool_calls", "tool_calls", "stop"], strict=True):
        a = chat.attributes
        assert chat.kind == client and chat.parent_id == agent.span_id
        assert a["gen_ai.operation.name"] == "chat" and a["gen_ai.provider.name"] == "openai"
        assert a["gen_ai.request.model"] == "test-model" and a["gen_ai.response.model"] == "test-model"
        assert a["gen_ai.response.id"] and a["gen_ai.response.finish_reasons"] == [finish]
        assert a["gen_ai.conversation.id"] == session_id
        assert a["server.address"] == "127.0.0.1" and a["server.port"] == server.port
        assert a["gen_ai.usage.input_tokens"] > 0 and a["gen_ai.usage.output_tokens"] > 0
        assert "error.type" not in a
    ok, failed = sorted(tree["execute_tool read_file"], key=lambda s: s.attributes["gen_ai.tool.call.id"])
    for tool in (ok, failed):
        a = tool.attributes
        assert tool.kind == internal and tool.parent_id == agent.span_id
        assert a["gen_ai.operation.name"] == "execute_tool" and a["gen_ai.tool.name"] == "read_file"
        assert a["gen_ai.tool.call.id"] and a["gen_ai.tool.type"] == "function"
    assert "error.type" not in ok.attributes and ok.status != 2
    assert failed.attributes["error.type"] == "tool_error" and failed.status == 2
    histograms = collector.histograms()
    usage = histograms["gen_ai.client.token.usage"]
    assert usage.unit == "{token}"
    assert usage.bounds == [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]
    by_type = {p["gen_ai.token.type"]: (count, total) for p, count, total in usage.points}
    assert by_type == {"input": (3, 360), "output": (3, 36)}
    for attributes, _, _ in usage.points:
        assert attributes["gen_ai.operation.name"] == "chat" and attributes["gen_ai.provider.name"] == "openai"
        assert attributes["gen_ai.request.model"] == "test-model" and attributes["gen_ai.response.model"] == "test-model"
        assert attributes["server.address"] == "127.0.0.1" and attributes["server.port"] == server.port
    duration = histograms["gen_ai.client.operation.duration"]
    assert duration.unit == "s"
    assert duration.bounds == [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92]
    assert sum(count for _, count, _ in duration.points) == 3
    assert all(p["gen_ai.operation.name"] == "chat" and "error.type" not in p for p, _, _ in duration.points)
    everything = json.dumps([s.attributes for spans in tree.values() for s in spans])
    assert "hello" not in everything and "a.txt" not in everything     # no content by default

