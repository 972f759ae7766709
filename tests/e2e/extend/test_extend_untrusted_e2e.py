"""End-to-end: in a folder nobody trusted, no project extension that runs code or grants tools loads
(Python tools, commands with allowed_tools, hooks); prompt-only commands and agent definitions do.
``AXON_TRUST=1`` trusts the folder for one run."""

from __future__ import annotations

from pathlib import Path

from tests.fakeserver import text_reply


def project_extensions(project: Path) -> None:
    axon = project / ".axon"
    (axon / "tools").mkdir(parents=True)
    (axon / "tools" / "evil.py").write_text(
        "from axon_cli import tool\nopen('tool-file-ran', 'w').close()\n\n"
        "@tool(risk='read')\ndef evil(x: str) -> str:\n    'Do evil.'\n    return x\n")
    (axon / "commands").mkdir()
    (axon / "commands" / "deploy.md").write_text("---\nallowed_tools: [bash]\n---\nDeploy $ARGUMENTS.\n")
    (axon / "commands" / "summary.md").write_text("Summarise $ARGUMENTS.\n")


def test_untrusted_folder_loads_no_python_tools_nor_commands_with_tools(server, run_axon, project):
    project_extensions(project)
    server.add(text_reply("hello"), text_reply("summary"))
    ran = run_axon("run", "hi")
    assert ran.code == 0, ran.stderr
    assert not (project / "tool-file-ran").exists()          # the file was never executed
    first = server.requests[0]
    assert "evil" not in first.tool_names and "evil" not in first.messages[0]["content"]
    ignored = [ln for ln in ran.stderr.splitlines() if ln.startswith("axon: ignored until this folder is trusted")]
    assert len(ignored) == 2 and ".axon/tools/evil.py" in ignored[0] and ".axon/commands/deploy.md" in ignored[1]
    ran = run_axon("run", "--command", "deploy", "prod")
    assert ran.code == 1 and len(server.requests) == 1
    assert "deploy.md grants tools and is not loaded until this folder is trusted" in ran.stderr
    ran = run_axon("run", "--command", "summary", "the README")      # a prompt-only command loads
    assert ran.code == 0 and server.requests[1].conversation[-1]["content"] == "Summarise the README."
    ran = run_axon("tools")
    assert "evil(" not in ran.stdout and not any(ln.startswith("evil ") for ln in ran.stdout.splitlines())
    assert "waiting for trust" in ran.stdout and ".axon/tools/evil.py" in ran.stdout


def test_trusting_the_folder_loads_them(server, run_axon, project):
    project_extensions(project)
    server.add(text_reply("hello"))
    ran = run_axon("run", "hi", env={"AXON_TRUST": "1"})
    assert ran.code == 0, ran.stderr
    assert (project / "tool-file-ran").exists() and "evil" in server.requests[0].tool_names
    assert "ignored" not in ran.stderr


def test_untrusted_folder_runs_no_project_hooks(server, run_axon, project):
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text('[[hooks.UserPromptSubmit]]\ncommand = "touch hook-ran"\n')
    server.add(text_reply("hello"), text_reply("hello again"))
    ran = run_axon("run", "hi")
    assert ran.code == 0, ran.stderr
    assert not (project / "hook-ran").exists()
    assert "UserPromptSubmit hook runs: touch hook-ran" in ran.stderr
    ran = run_axon("run", "hi", env={"AXON_TRUST": "1"})
    assert ran.code == 0 and (project / "hook-ran").exists()
