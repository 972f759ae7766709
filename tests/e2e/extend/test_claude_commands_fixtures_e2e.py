"""End-to-end: Claude Code commands and sub-agents (``tests/fixtures/claude_commands``, written for this
project in the shape of public ones, see its README) in a project's ``.claude/`` folder, run by the real
``axon`` against the scripted server, each behaving as in Claude Code: ``!`` lines run and inlined, ``$ARGUMENTS``/``$1``
substituted, ``allowed-tools`` letting through exactly what they list (asserted on the git state and
the files on disk), namespaced names, ``model``, and agents offered to ``task`` and given only their
tools."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.fakeserver import text_reply, tool_reply

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "claude_commands"
TRUSTED = {"AXON_TRUST": "1"}
NO_SANDBOX = ("--sandbox", "off")      # the policy alone decides (no "sandboxed, undoable" allowance)
ACTIVATE = tool_reply(("tool_search", {"query": "select:task"}))


def install(project: Path) -> None:
    shutil.copytree(FIXTURES / "commands", project / ".claude" / "commands")
    shutil.copytree(FIXTURES / "agents", project / ".claude" / "agents")


def git(project: Path, env: dict[str, str], *args: str) -> str:
    return subprocess.run(["git", *args], cwd=project, env=env, capture_output=True, text=True, check=True).stdout


def repo(project: Path, env: dict[str, str]) -> None:
    """A real repository: one commit, a changed file and an untracked one."""
    shutil.rmtree(project / ".git")
    git(project, env, "init", "-q", "-b", "main")
    git(project, env, "config", "user.email", "dev@example.com")
    git(project, env, "config", "user.name", "Dev")
    (project / "README.md").write_text("# demo\n")
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("print('v1')\n")
    git(project, env, "add", "README.md", "src")
    git(project, env, "commit", "-q", "-m", "initial")
    (project / "src" / "app.py").write_text("print('v2')\n")
    (project / "notes.txt").write_text("remember the milk\n")


def bash(command: str) -> tuple[str, dict[str, Any]]:
    return ("bash", {"command": command})


def sent(server: Any, n: int = 0) -> str:
    content = server.requests[n].conversation[-1]["content"]
    assert isinstance(content, str)
    return content


def test_commit_inlines_its_git_lines_and_allows_exactly_git_add_and_commit(server, run_axon, project, axon_env):
    repo(project, axon_env)
    install(project)
    status, diff = git(project, axon_env, "status", "--short"), git(project, axon_env, "diff", "HEAD")
    server.add(tool_reply(bash("git add src/app.py notes.txt"), bash("git commit -m 'Update app, add notes'")),
               tool_reply(bash("rm README.md")),                              # not in allowed-tools
               tool_reply(bash("git add . && rm -rf src")),                   # git add, and something else
               text_reply("committed"))
    ran = run_axon("run", "--command", "commit", *NO_SANDBOX, env=TRUSTED)
    assert ran.code == 0, ran.stderr
    prompt = sent(server)
    assert prompt.startswith("What the working tree looks like:\n\n" + status.rstrip("\n") + "\n\n"
                             "Every change since the last commit:\n\n" + diff.rstrip("\n") + "\n\n")
    assert "Checked-out branch: main\n" in prompt and " initial\n" in prompt
    assert "!`" not in prompt and "Turn the changes above into exactly one commit." in prompt
    assert git(project, axon_env, "log", "--format=%s") == "Update app, add notes\ninitial\n"
    assert (project / "README.md").exists() and (project / "src" / "app.py").read_text() == "print('v2')\n"
    assert git(project, axon_env, "status", "--porcelain") == "?? .claude/\n"      # `git add .` never ran


def test_commit_push_pr_pushes_but_its_unlisted_branch_switch_is_refused(server, run_axon, project, axon_env):
    repo(project, axon_env)
    install(project)
    remote = project.parent / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    git(project, axon_env, "remote", "add", "origin", str(remote))
    server.add(tool_reply(bash("git checkout -b feature")),
               tool_reply(bash("git add src/app.py"), bash("git commit -m 'v2'"), bash("git push origin main")),
               text_reply("pushed"))
    ran = run_axon("run", "--command", "commit-push-pr", *NO_SANDBOX, env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert "Checked-out branch: main\n" in sent(server)
    assert git(project, axon_env, "branch", "--list", "feature") == ""      # only `git switch --create` is listed
    pushed = subprocess.run(["git", "--git-dir", str(remote), "log", "--format=%s", "main"], capture_output=True,
                            text=True, check=True).stdout
    assert pushed == "v2\ninitial\n"


def test_review_pr_substitutes_its_arguments_and_bare_bash_allows_any_command(server, run_axon, project):
    install(project)
    server.add(tool_reply(bash("touch reviewed.txt")),
               tool_reply(("write_file", {"path": "REVIEW.md", "content": "ok\n"})),   # Write is not listed
               text_reply("reviewed"))
    ran = run_axon("run", "--command", "review-pr", "tests errors", *NO_SANDBOX, env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert 'Concerns to cover: "tests errors" (when empty' in sent(server)
    assert (project / "reviewed.txt").exists()
    assert not (project / "REVIEW.md").exists()


def test_code_review_and_modernize_brief_keys_and_positional_arguments(server, run_axon, project):
    install(project)
    server.add(tool_reply(bash("touch stray.txt")), text_reply("reviewed"), text_reply("brief"))
    ran = run_axon("run", "--command", "code-review", "42", *NO_SANDBOX, env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert "front matter" not in ran.stderr                 # disable-model-invocation is a known key
    assert sent(server).startswith("Review one pull request on GitHub and leave a single comment")
    assert sent(server).endswith("\n\nArguments: 42")
    assert not (project / "stray.txt").exists()             # only its gh commands are allowed
    ran = run_axon("run", "--command", "modernize-brief", "billing java21")
    assert ran.code == 0, ran.stderr
    brief = sent(server, 2)
    assert brief.startswith("Plan the migration of `legacy/billing/` and write the plan to `plans/billing/PLAN.md`.")
    assert "Target: `java21`. When no target" in brief and "$1" not in brief and "$2" not in brief


def test_subfolder_commands_run_by_bare_and_namespaced_name_with_their_model(server, run_axon, project, axon_env):
    install(project)
    config = Path(axon_env["XDG_CONFIG_HOME"]) / "axon" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('guidance = "off"\n')       # one answer per task, as a large model's
    server.add(text_reply("fixed"), text_reply("fixed again"), text_reply("flowed"))
    assert run_axon("run", "--command", "issue", "123").code == 0
    assert run_axon("run", "--command", "tools:issue", "124").code == 0
    assert run_axon("run", "--command", "workflows:git-workflow").code == 0
    assert sent(server, 0).startswith("Fix GitHub issue 123 in this repository.")
    assert sent(server, 1).startswith("Fix GitHub issue 124 in this repository.")
    assert sent(server, 2).startswith("Take the current changes from review to pull request")
    assert [r.body["model"] for r in server.requests] == ["claude-sonnet-4-0", "claude-sonnet-4-0", "claude-opus-4-1"]


def test_business_case_waits_for_trust_then_its_listed_tools_run_unasked(server, run_axon, project):
    install(project)
    ran = run_axon("run", "--command", "business-case", "a bakery")
    assert ran.code != 0 and "business-case.md" in ran.stderr and "axon trust" in ran.stderr
    assert server.requests == []
    server.add(tool_reply(("write_file", {"path": "case.md", "content": "# Bakery\n"})), text_reply("written"))
    ran = run_axon("run", "--command", "business-case", "a bakery", *NO_SANDBOX, env=TRUSTED)
    assert ran.code == 0, ran.stderr
    assert (project / "case.md").read_text() == "# Bakery\n"


def _task(agent: str) -> Any:
    return tool_reply(("task", {"description": f"run {agent}", "prompt": f"Do the {agent} job.", "agent": agent}))


def _task_description(request: Any) -> str:
    """``task``'s description: in the request's tools, or (a local endpoint keeps the tools it was
    sent first) described after the result that activated it."""
    tool = next((t for t in request.body["tools"] if t["function"]["name"] == "task"), None)
    return str(tool["function"]["description"]) if tool else str(request.messages[-1]["content"])


def test_agents_are_offered_to_task_and_get_only_their_tools(server, run_axon, project):
    install(project)
    agents = ["code-explorer", "git-workflow-manager", "team-debugger", "silent-failure-hunter", "code-simplifier"]
    server.add(ACTIVATE)
    for agent in agents:
        server.add(_task(agent), text_reply(f"{agent} done"))
    server.add(text_reply("all done"))
    ran = run_axon("run", "use the agents", "--output-format", "stream-json")
    assert ran.code == 0, ran.stderr
    offered = _task_description(server.requests[1])
    assert "- code-explorer: Maps how an existing feature works" in offered
    assert "- code-simplifier: Tidies code that was just written or changed" in offered
    assert "- git-workflow-manager: Sets up and repairs a team's Git practice" in offered
    children = [server.requests[2 + 2 * i] for i in range(len(agents))]
    assert [c.conversation[-1]["content"] for c in children] == [f"Do the {a} job." for a in agents]
    explorer, manager, debugger, hunter, simplifier = children
    assert explorer.tool_names == ["search_files", "list_files", "read_file", "todo_write", "bash_output"]
    assert manager.tool_names == ["bash", "read_file", "edit_file", "write_file", "search_files", "list_files"]
    assert debugger.tool_names == ["bash", "read_file", "search_files", "list_files"]
    assert {"bash", "write_file", "edit_file", "read_file"} <= set(hunter.tool_names)
    assert "task" not in hunter.tool_names and set(hunter.tool_names) == set(simplifier.tool_names)
    assert {r.body["model"] for r in server.requests} == {"test-model"}       # sonnet, haiku, opus, inherit
    assert "You are a careful reader of unfamiliar code." in explorer.messages[0]["content"]
    assert "You review error handling." in hunter.messages[0]["content"]
    notes = [json.loads(line) for line in ran.stdout.splitlines() if line.strip()]
    assert any("NotebookRead" in json.dumps(e) for e in notes)               # said, not an error


def test_an_agent_with_bash_still_passes_the_policy(server, run_axon, project):
    install(project)
    server.add(ACTIVATE, _task("git-workflow-manager"), tool_reply(bash("rm -f README.md")),
               text_reply("could not"), text_reply("done"))
    (project / "README.md").write_text("keep me\n")
    ran = run_axon("run", "clean up", *NO_SANDBOX)
    assert ran.code == 0, ran.stderr
    assert (project / "README.md").read_text() == "keep me\n"
    assert "Permission denied" in server.requests[3].messages[-1]["content"]


def test_help_shows_argument_hints_namespaces_and_the_agents(server, project, axon_env):
    from tests.e2e.ui.test_repl import Chat

    install(project)
    server.add(text_reply("fixed"))
    c = Chat(project, axon_env)
    try:
        c.expect("runs before its prompt: git status --short, git diff HEAD")     # the trust screen names the ! lines
        c.expect("Enter continue without them")
        c.send("\r")
        c.prompt()
        c.say("/help")
        c.expect("/git-workflow")
        c.expect("(project:workflows)")
        c.expect("/issue")
        c.expect("(project:tools)")
        c.expect("/modernize-brief <module-dir> [target-version]")
        c.expect("Sub-agents (task tool)")
        c.expect("code-explorer")
        c.prompt()
        c.say("/tools:issue 77")
        c.expect("fixed")
        assert server.requests[0].conversation[-1]["content"].startswith("Fix GitHub issue 77 in this repository.")
        c.exit()
    finally:
        if c.child.isalive():
            c.child.terminate(force=True)
    assert "Traceback" not in c.raw
