"""Red-team findings in the shell-permission layer, each a bypass that once got through.

Every test goes through the real dispatcher with the real policy (``load_policy``) and the real
``bash`` tool, or through the real ``axon run`` against the scripted server, and asserts what
actually happened on disk or in the tool result.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from axon_cli.machinery.sandbox import resolve
from axon_cli.policy.project_policy import decide, load_policy
from axon_cli.policy.rules import RuleSet, rules_from_data
from axon_cli.settings.config import load_settings
from axon_cli.shell.analyze import analyze
from axon_cli.tools.dispatch import Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext
from tests.fakeserver import text_reply, tool_reply

SECRET = "STRIPE=zq8Xw2PlainSecretValue77"


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("KEEP = 1\n")
    (root / ".env").write_text(SECRET + "\n")
    return root


def dispatcher(root: Path, mode: str | None = None, rules: str | None = None) -> Dispatcher:
    if rules is not None:
        (root / ".axon").mkdir(exist_ok=True)
        (root / ".axon" / "permissions.toml").write_text(rules)
    loaded = load_settings(root, trust_run=True)       # the rules under test are the user's own
    policy = load_policy(loaded, root)
    if mode:
        policy.set_mode(mode)
    registry = ToolRegistry.with_builtins(resolve(loaded.settings.sandbox))
    ctx = ToolContext(project_root=root, state_dir=root / ".axon", session_id="rt", settings=loaded.settings,
                      registry=registry)
    return Dispatcher(registry, ctx, policy=policy)


def bash(d: Dispatcher, command: str) -> str:
    return d.dispatch(ToolCall(id="c1", name="bash", arguments=json.dumps({"command": command}))).content


def _decision(command: str, mode: str = "default", rules: RuleSet | None = None) -> str:
    root, home = Path("/work/proj"), Path("/home/user")
    return decide("bash", "shell", {"command": command}, False, False, mode, rules or RuleSet(), root, home).behavior


# -- redirections on compound commands ({ …; }, ( … ), loops, if) were dropped ----------------------
@pytest.mark.parametrize("command", [
    "{ echo pwned; } > src/a.py", "( echo pwned ) > src/a.py", "for i in 1; do echo pwned; done > src/a.py",
    "if true; then echo pwned; fi > src/a.py", "while true; do echo pwned; break; done >> src/a.py",
])
def test_compound_redirect_into_a_file_is_not_read_only(proj: Path, command: str) -> None:
    assert not analyze(command).read_only
    out = bash(dispatcher(proj, mode="read-only"), command)
    assert out.startswith("Permission denied:") and "mode read-only" in out
    assert (proj / "src" / "a.py").read_text() == "KEEP = 1\n"


@pytest.mark.parametrize("command", [
    "{ cat; } < .env", "( cat ) < .env", "while read l; do echo $l; done < .env", "if true; then cat; fi < .env",
])
def test_compound_redirect_from_a_sensitive_file_asks(proj: Path, command: str) -> None:
    out = bash(dispatcher(proj), command)
    assert out.startswith("Permission denied: the user did not approve")
    assert "zq8Xw2" not in out


# -- builtins that change what later commands run were treated as read-only ------------------------
@pytest.mark.parametrize("command", [
    "export GIT_EXTERNAL_DIFF='touch pwned;:'; git diff",
    "declare -x GIT_EXTERNAL_DIFF='touch pwned;:'; git diff",
    "export PATH=.:$PATH", "local LD_PRELOAD=./x.so", "read PATH <<< .; ls", "unset GIT_PAGER; git log",
    "shopt -s expand_aliases\nalias ls='touch pwned'\nls", "alias ls='touch pwned'",
    "hash -p \"$(which touch)\" cat; cat pwned", "history -w pwned",
])
def test_environment_and_lookup_changing_builtins_are_not_read_only(command: str) -> None:
    assert not analyze(command).read_only
    assert _decision(command) == "ask"


@pytest.mark.parametrize("command", [
    "export", "export -p", "declare -p", "alias", "alias ll", "hash", "history", "history 5",
    "while read -r line; do echo $line; done < in.txt", "export LANG=C; sort x", "unset x",
])
def test_harmless_forms_of_those_builtins_stay_read_only(command: str) -> None:
    assert analyze(command).read_only, analyze(command).units


def test_git_external_diff_through_export_does_not_run(proj: Path) -> None:
    subprocess.run(["git", "init", "-q", str(proj)], check=True)
    subprocess.run("git add src && git -c user.email=a@b -c user.name=n commit -qm i", shell=True, cwd=proj,
                   check=True)
    (proj / "src" / "a.py").write_text("KEEP = 2\n")
    out = bash(dispatcher(proj), "export GIT_EXTERNAL_DIFF='touch pwned;:'; git diff")
    assert out.startswith("Permission denied: the user did not approve")
    assert not (proj / "pwned").exists()


# -- $"…" (locale quoting) is just a double-quoted string ------------------------------------------
def test_locale_quoted_sensitive_path_asks(proj: Path) -> None:
    out = bash(dispatcher(proj), 'cat $".env"')
    assert out.startswith("Permission denied: the user did not approve") and "zq8Xw2" not in out
    assert analyze('cat $".env"').units[0].argv == ["cat", ".env"]


# -- git REV:PATH names a file too ------------------------------------------------------------------
@pytest.mark.parametrize("command,decision", [
    ("git show HEAD:.env", "ask"), ("git show :.env", "ask"), ("git cat-file -p HEAD:.env", "ask"),
    ("git show HEAD:secrets/db.txt", "deny"), ("git show HEAD~1:src/app.py", "allow"),
])
def test_git_rev_path_forms_are_checked_like_paths(command: str, decision: str) -> None:
    rules = rules_from_data({"deny": ["read_file(secrets/**)"]}, ".axon/permissions.toml")
    assert _decision(command, rules=rules) == decision


# -- clustered short options ------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["sort -mo out.txt a", "sort -uo out.txt a", "fd -Hx rm", "tree -ao out.txt"])
def test_write_option_inside_a_cluster_is_not_read_only(command: str) -> None:
    assert not analyze(command).read_only


# -- an allow rule covers the command, not a file it redirects into ---------------------------------
def test_allow_rule_does_not_cover_redirected_writes(proj: Path) -> None:
    d = dispatcher(proj, rules='allow = ["bash(git status*)", "bash(echo *)"]\n')
    out = bash(d, "echo pwned > src/a.py")
    assert out.startswith("Permission denied: the user did not approve")
    assert (proj / "src" / "a.py").read_text() == "KEEP = 1\n"
    assert "exit code 0" in bash(d, "echo fine > /dev/null")


def test_allow_rule_plus_redirect_is_still_allowed_in_accept_edits(proj: Path) -> None:
    d = dispatcher(proj, mode="accept-edits", rules='allow = ["bash(echo *)"]\n')
    assert "exit code 0" in bash(d, "echo new > src/b.txt")
    assert (proj / "src" / "b.txt").read_text() == "new\n"


# -- the same, through the real `axon run` ----------------------------------------------------------
def test_compound_redirect_cannot_clobber_in_read_only_via_axon_run(server, run_axon, project) -> None:  # type: ignore[no-untyped-def]
    (project / "app.py").write_text("KEEP\n")
    server.add(tool_reply(("bash", {"command": "{ echo pwned; } > app.py"})), text_reply("done"))
    r = run_axon("run", "go", "--mode", "read-only", "--yes")
    assert r.code == 0, r.stderr
    assert (project / "app.py").read_text() == "KEEP\n"
    tool = server.requests[1].messages[-1]
    assert tool["role"] == "tool" and tool["content"].startswith("Permission denied:")


def test_git_config_write_in_accept_edits_asks_via_axon_run(server, run_axon, project) -> None:  # type: ignore[no-untyped-def]
    config = project / ".git" / "config"
    before = config.read_text() if config.exists() else None
    server.add(tool_reply(("write_file", {"path": ".git/config",
                                          "content": "[core]\n\tfsmonitor = touch pwned; false #\n"})),
               text_reply("done"))
    r = run_axon("run", "go", "--mode", "accept-edits")
    assert r.code == 0, r.stderr
    assert (config.read_text() if config.exists() else None) == before
    assert server.requests[1].messages[-1]["content"].startswith("Permission denied: the user did not approve")
