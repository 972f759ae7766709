"""A call is prepared once: through the real session (runtime, loop, guidance, text protocol, policy,
sandbox decision, hooks' seam, dispatch) against the scripted server, one bash call's command is
analysed once and its arguments' JSON is parsed once, whatever reads them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from axon_cli.kernel.events import AutoApprover
from axon_cli.session.runtime.opening import open_session
from axon_cli.settings.config import load_settings
from axon_cli.shell import analyze as analysis_module
from tests.conftest import TEST_KEY
from tests.fakeserver import text_reply, tool_reply

COMMAND = "ls -la | grep foo && echo counted-once"


class Counter:
    """Counts the analyses of one command and the JSON parses of one arguments text."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, arguments: str) -> None:
        self.analyses = 0
        self.parses = 0
        real_init, real_loads = analysis_module.CommandAnalysis.__init__, json.loads

        def init(obj: Any, command: str, *args: Any, **kw: Any) -> None:
            self.analyses += command == COMMAND
            real_init(obj, command, *args, **kw)

        def loads(text: Any, *args: Any, **kw: Any) -> Any:
            self.parses += text == arguments
            return real_loads(text, *args, **kw)

        monkeypatch.setattr(analysis_module.CommandAnalysis, "__init__", init)
        monkeypatch.setattr(json, "loads", loads)


@pytest.fixture
def session(project: Path, server, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(project.parent / "home" / ".config"))

    def _open(**flags: Any):  # type: ignore[no-untyped-def]
        loaded = load_settings(project, flags={"base_url": server.url, "api_key": TEST_KEY, "model": "test-model",
                                               "max_attempts": 1, "guidance": "on", **flags}, env={})
        return open_session(loaded, project, AutoApprover())
    return _open


@pytest.mark.parametrize("protocol", ["native", "auto"])
def test_one_bash_call_is_analysed_once_and_parsed_once(session, server, monkeypatch, protocol: str) -> None:
    arguments = json.dumps({"command": COMMAND})
    server.add(tool_reply(("bash", {"command": COMMAND})), text_reply("done"))
    rt = session(tool_protocol=protocol)
    counter = Counter(monkeypatch, arguments)
    try:
        result = rt.agent.run("count files")
    finally:
        rt.close()
    assert result.stop_reason == "final"
    tool = [m for m in server.requests[1].messages if m["role"] == "tool"]
    assert len(tool) == 1 and "exit code" in tool[0]["content"]          # it really ran
    assert counter.analyses == 1
    assert counter.parses == 1


def test_a_call_written_as_text_is_parsed_once(session, server, monkeypatch) -> None:
    call = {"name": "bash", "arguments": {"command": COMMAND}}
    server.add(text_reply(f"<tool_call>{json.dumps(call)}</tool_call>"), text_reply("done"))
    rt = session(tool_protocol="text")
    counter = Counter(monkeypatch, json.dumps({"command": COMMAND}))
    try:
        rt.agent.run("count files")
    finally:
        rt.close()
    assert "exit code" in server.requests[1].messages[-1]["content"]      # the text call ran
    assert counter.analyses == 1
    assert counter.parses == 0              # read from the reply once as text; never re-parsed from a dump
