"""``axon run --sandbox …`` through the real ``axon`` subprocess against the scripted server."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply
from tests.test_sandbox import needs_namespaces


@needs_namespaces
def test_write_outside_fails_and_the_model_sees_it(server, run_axon, project: Path) -> None:
    outside = project.parent / "outside"
    outside.mkdir()
    command = f"echo in > inside.txt; echo out > {outside}/f; echo home > $HOME/f"
    server.add(tool_reply(("bash", {"command": command})), text_reply("done"))
    r = run_axon("run", "go", "--sandbox", "workspace-write", "--yes")
    assert r.code == 0, r.stderr
    msg = server.requests[1].messages[-1]
    assert msg["role"] == "tool"
    assert f"{outside}/f: No such file or directory" in msg["content"]      # host /tmp is not visible
    assert "f: Read-only file system" in msg["content"]                     # HOME is read-only
    assert msg["content"].endswith("exit code 1\n(sandbox: workspace-write: only the project "
                                   "(not .git or .axon) and /tmp are writable)")
    assert (project / "inside.txt").read_text() == "in\n"
    assert not (outside / "f").exists() and not (project.parent / "home" / "f").exists()
    tools = {t["function"]["name"]: t["function"] for t in server.requests[0].body["tools"]}
    assert "Sandbox (workspace-write)" in tools["bash"]["description"]


def test_sandbox_without_bwrap_fails_fast(server, run_axon) -> None:
    r = run_axon("run", "go", "--sandbox", "read-only", "--yes", env={"PATH": str(Path(sys.executable).parent)})
    assert r.code == 1
    assert r.stderr.strip() == ("axon: error: sandbox 'read-only' needs bubblewrap: apt install bubblewrap "
                                "(or use --sandbox off)")
    assert server.requests == []

