"""Issue 32, class D: a file axon writes that skips the masker. With any hook configured, the
Claude-format transcript (``.axon/sessions/ID.claude.jsonl``) kept the user's prompt unmasked.

The whole class, in one ``axon run --yes`` with a hook configured, ``AXON_DEBUG=1`` and telemetry
exporting to a local collector: a GitHub-shaped token planted in each place text comes from — the
prompt, a file the model reads, a command's output (built by ``rev``, so the command's arguments
do not hold it), a command's spilled output, an environment variable, the model's own answer, a
memory the model saves, a file the model writes (its arguments), the hook's command line. Every file
under ``.axon/`` afterwards, every file of axon's user state dir (the snapshot log keeps each turn's
prompt) but the shadow repository's compressed objects (the project's own files, for undo), and every
payload the collector received, is searched for each token.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.attacks.lab import Lab, crashed, leaked
from tests.e2e.telemetry.collector import Collector
from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

pytestmark = needs_namespaces


def _token(tag: str) -> str:
    return "ghp_" + (tag + "Z7xq3N8vLw2Rk5Tb9Yc4Md6Pf1Gh0Js2Ku8A")[:36]


TOKENS = {where: _token(tag) for where, tag in {
    "prompt": "Pr0mpt", "read_file": "F1leRd", "command_output": "CmdOut", "spill": "Sp1llX",
    "env": "EnvVar", "model_text": "M0dTxt", "memory": "Mem0ry", "write_args": "Wr1teA", "hook_command": "H00kC",
}.items()}


@pytest.fixture(scope="module")
def masked_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Lab, object, Collector]]:
    lab = Lab(tmp_path_factory.mktemp("d32"))
    collector = Collector()
    lab.write("notes.txt", f"deploy notes\ntoken={TOKENS['read_file']}\n")
    lab.user_config("config.toml", f"""
[[hooks.PostToolUse]]
command = "cat > /dev/null # {TOKENS['hook_command']}"

[[hooks.UserPromptSubmit]]
command = "cat > /dev/null"
""")
    lab.commit_all()
    rev = TOKENS["command_output"][::-1]
    spill = f"seq 1 30000; printf '%s\\n' '{TOKENS['spill'][::-1]}' | rev"
    lab.script(
        tool_reply(("tool_search", {"query": "select:memory_save"}), call_ids=["activate"]),   # a deferred tool
        tool_reply(("read_file", {"path": "notes.txt"}), ("bash", {"command": f"printf '%s\\n' '{rev}' | rev"}),
                   ("bash", {"command": spill}), ("bash", {"command": "echo \"token: $MY_SERVICE_TOKEN\""}),
                   ("memory_save", {"name": "deploy", "content": f"the deploy token is {TOKENS['memory']}"}),
                   ("write_file", {"path": "out.txt", "content": f"token {TOKENS['write_args']}\n"}),
                   call_ids=["read", "output", "spill", "env", "memory", "write"]),
        text_reply(f"Done. The token I found is {TOKENS['model_text']}."))
    ran = lab.axon("run", f"check the deploy with token {TOKENS['prompt']}", "--yes",
                   env={"MY_SERVICE_TOKEN": TOKENS["env"], "AXON_DEBUG": "1",
                        "OTEL_EXPORTER_OTLP_ENDPOINT": collector.url, "OTEL_METRICS_EXPORTER": "none",
                        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"})   # content on spans, masked
    yield lab, ran, collector
    collector.close()
    lab.close()


def _files(lab: Lab, user_state: bool = False) -> dict[str, str]:
    """Every file under the project's .axon/ (with ``user_state``: and under axon's user state dir)."""
    roots = [lab.project / ".axon", *([lab.home / ".local" / "state" / "axon"] if user_state else [])]
    return {str(p): p.read_bytes().decode("utf-8", "replace") for root in roots for p in sorted(root.rglob("*"))
            if p.is_file() and "objects" not in p.relative_to(root).parts}


def test_the_run_touched_every_writer(masked_run) -> None:  # type: ignore[no-untyped-def]
    lab, ran, collector = masked_run
    assert not crashed(ran) and ran.code == 0, ran.stderr[-3000:]
    names = {str(Path(n).relative_to(lab.project / ".axon")) for n in _files(lab)}
    assert "audit.jsonl" in names and "debug.log" in names
    assert any(n.endswith(".claude.jsonl") for n in names) and any(n.startswith("sessions/") and
                                                                   n.endswith(".jsonl") for n in names)
    assert any(n.startswith("tool-results/") for n in names), names       # the spill
    assert any(n.startswith("memory/") for n in names), names
    assert collector.bodies("/v1/traces"), "telemetry sent nothing"
    results = lab.results()
    assert "[REDACTED]" in results["output"] and "[REDACTED]" in results["read"]    # the model side holds
    assert list((lab.home / ".local" / "state" / "axon").rglob("turns.json")), "no snapshot was taken"


@pytest.mark.parametrize("where", sorted(TOKENS))
def test_no_file_under_axon_holds_a_planted_token(masked_run, where: str) -> None:  # type: ignore[no-untyped-def]
    lab, _, _ = masked_run
    found = [name for name, text in _files(lab, user_state=True).items() if leaked(TOKENS[where], text)]
    assert found == [], f"{where}: {found}"


@pytest.mark.parametrize("where", sorted(TOKENS))
def test_no_telemetry_payload_holds_a_planted_token(masked_run, where: str) -> None:  # type: ignore[no-untyped-def]
    _, _, collector = masked_run
    payloads = b"".join(body for _, body in list(collector.posts)).decode("latin-1")
    assert "[REDACTED]" in payloads                  # content was recorded (opted in), masked
    assert TOKENS[where] not in payloads


def test_the_claude_transcript_is_still_claude_code_shaped(masked_run) -> None:  # type: ignore[no-untyped-def]
    lab, _, _ = masked_run
    (path,) = (lab.project / ".axon" / "sessions").glob("*.claude.jsonl")
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    prompt = next(line for line in lines if line["type"] == "user" and isinstance(line["message"]["content"], str))
    assert prompt["message"]["content"] == "check the deploy with token [REDACTED]"
    assert any(b.get("type") == "tool_use" for line in lines if line["type"] == "assistant"
               for b in line["message"]["content"])


def test_memory_reads_back_masked(masked_run) -> None:  # type: ignore[no-untyped-def]
    lab, _, _ = masked_run
    (memory,) = Path(lab.project / ".axon" / "memory").glob("*.md")
    assert memory.read_text() == "the deploy token is [REDACTED]\n"
