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
    assert {k: len(v) for k, v in by_name.items()} == {"axon.run": 1, "axon.turn": 1, "axon.model_request": 3,
                                                       "axon.tool_call": 2}
    (root,), (turn,) = by_name["axon.run"], by_name["axon.turn"]
    assert root.parent_id == b"" and turn.parent_id == root.span_id
    assert all(s.parent_id == turn.span_id for s in by_name["axon.model_request"] + by_name["axon.tool_call"])
    assert len({s.trace_id for s in spans}) == 1
    requests = sorted(by_name["axon.model_request"], key=lambda s: s.attributes["axon.request.index"])
    for span, (prompt, completion, cached) in zip(requests, USAGE, strict=True):
        assert span.attributes["gen_ai.request.model"] == "test-model"
        assert span.attributes["gen_ai.usage.input_tokens"] == prompt
        assert span.attributes["gen_ai.usage.output_tokens"] == completion
        assert span.attributes.get("axon.usage.cached_tokens") == cached
    calls = {s.attributes["axon.tool.name"]: s.attributes for s in by_name["axon.tool_call"]}
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
    (call,) = [s for s in collector.spans() if s.name == "axon.tool_call"]
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
    assert len(tree["axon.run"]) == 1 and len(tree["axon.tool_call"]) == 1
    assert len(tree["axon.model_request"]) == 2
    assert tree["axon.turn"][0].attributes["axon.turn.stop_reason"] == "interrupted"


def test_an_error_exit_still_flushes_with_the_failed_request_marked(server, run_axon, collector):
    server.add(*[error_reply(500, "boom", retry_after="0") for _ in range(5)])
    r = run_axon("run", "x", env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url})
    assert r.code == 1
    tree = _tree(collector)
    (request,) = tree["axon.model_request"]
    assert request.status == 2                      # STATUS_CODE_ERROR
    assert tree["axon.turn"][0].attributes["axon.turn.stop_reason"] == "error"
    assert "boom" not in json.dumps([s.attributes for spans in tree.values() for s in spans])


def test_chat_sends_one_session_span_per_conversation(server, run_axon, collector):
    server.add(text_reply("first"), text_reply("second"), text_reply("third"))
    r = run_axon("chat", input="one\ntwo\n/new\nthree\n/exit\n", env={"OTEL_EXPORTER_OTLP_ENDPOINT": collector.url})
    assert r.code == 0, r.stderr
    tree = _tree(collector)
    sessions = tree["axon.session"]
    assert len(sessions) == 2 and len({s.trace_id for s in sessions}) == 2
    turns = tree["axon.turn"]
    assert sorted(sum(t.parent_id == s.span_id for t in turns) for s in sessions) == [1, 2]
    assert len(tree["axon.model_request"]) == 3 and "axon.run" not in tree


def test_doctor_says_whether_telemetry_is_on_and_config_hides_its_headers(run_axon, project):
    config = project.parent / "home" / ".config" / "axon"
    config.mkdir(parents=True)
    assert "telemetry: off (" in run_axon("doctor").stdout
    (config / "config.toml").write_text('[telemetry]\nenabled = true\nendpoint = "http://127.0.0.1:9"\n'
                                        f'headers = {{ "Authorization" = "Bearer {SECRET}" }}\n')
    r = run_axon("doctor")
    assert "telemetry: on — traces otlp, metrics otlp, OTLP http/protobuf to http://127.0.0.1:9" in r.stdout
    assert SECRET not in r.stdout and "'Authorization': '****'" in r.stdout
