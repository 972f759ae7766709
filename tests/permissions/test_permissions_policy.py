"""Unit tests of the policy: precedence, modes, sensitive paths, escapes, files, remember, reports."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from pydantic import BaseModel

from axon_cli.kernel.errors import ConfigError
from axon_cli.policy.paths import fs_resolver
from axon_cli.policy.project_policy import RulePolicy, decide, load_policy
from axon_cli.policy.rules import RuleSet, bash_match, load_rules, path_match, rules_from_data
from axon_cli.settings.config import load_settings
from axon_cli.settings.trust import FolderTrust
from axon_cli.tools.spec import ToolContext, ToolSpec

SRC = ".axon/permissions.toml"


class PathIn(BaseModel):
    path: str


class CmdIn(BaseModel):
    command: str


def _spec(name: str, category: str) -> ToolSpec:  # type: ignore[type-arg]
    model = CmdIn if category == "shell" else PathIn
    return ToolSpec(name=name, description=name, input_model=model, handler=lambda i, c: "", category=category,  # type: ignore[arg-type]
                    is_read_only=lambda _i: category == "read",
                    paths=(lambda i: [i.path]) if model is PathIn else (lambda _i: []))


@pytest.fixture
def env(tmp_path: Path):
    root, home = tmp_path / "proj", tmp_path / "home"
    (root / "src").mkdir(parents=True)
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY")
    return root, home


def file_decision(env, tool, path, mode="default", rules=None, resolve=True):  # type: ignore[no-untyped-def]
    root, home = env
    cat = "read" if tool == "read_file" else "edit"
    return decide(tool, cat, {"path": path}, cat == "read", False, mode, rules or RuleSet(), root, home,
                  paths=[path], resolve=fs_resolver(root, home) if resolve else None)


def bash_decision(env, command, mode="default", rules=None):  # type: ignore[no-untyped-def]
    root, home = env
    return decide("bash", "shell", {"command": command}, False, False, mode, rules or RuleSet(), root, home,
                  resolve=fs_resolver(root, home))


def R(**kw):  # type: ignore[no-untyped-def]
    return rules_from_data(kw, SRC)


# -- modes --------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode,read,edit,shell_ro,shell_rw", [
    ("default", "allow", "ask", "allow", "ask"),
    ("accept-edits", "allow", "allow", "allow", "ask"),
    ("read-only", "allow", "deny", "allow", "deny"),
    ("yolo", "allow", "allow", "allow", "allow"),
])
def test_modes(env, mode, read, edit, shell_ro, shell_rw):
    assert file_decision(env, "read_file", "src/a.py", mode).behavior == read
    assert file_decision(env, "edit_file", "src/a.py", mode).behavior == edit
    assert bash_decision(env, "ls src", mode).behavior == shell_ro
    assert bash_decision(env, "make", mode).behavior == shell_rw


def test_mode_decision_names_the_mode(env):
    d = file_decision(env, "edit_file", "src/a.py")
    assert (d.behavior, d.decided_by, d.reason) == ("ask", "mode default", "changes a file")
    assert d.suggested_rule == "edit_file(src/a.py)"
    d = bash_decision(env, "rm x", "read-only")
    assert (d.behavior, d.decided_by, d.reason) == ("deny", "mode read-only", 'bash "rm x" is not read-only')


# -- precedence -----------------------------------------------------------------------------------
def test_deny_beats_ask_beats_allow(env):
    rules = R(allow=["bash(git *)"], ask=["bash(git push *)"], deny=["bash(git push --force*)"])
    assert bash_decision(env, "git commit -m x", rules=rules).behavior == "allow"
    d = bash_decision(env, "git push origin main", rules=rules)
    assert (d.behavior, d.decided_by) == ("ask", f'ask rule "bash(git push *)" in {SRC}')
    d = bash_decision(env, "git push --force", rules=rules)
    assert (d.behavior, d.decided_by) == ("deny", f'deny rule "bash(git push --force*)" in {SRC}')


def test_deny_rule_beats_yolo_and_allow_beats_mode(env):
    rules = R(allow=["edit_file(src/**)"], deny=["bash(curl *)", "edit_file(src/gen/**)"])
    assert bash_decision(env, "curl http://x", "yolo", rules).behavior == "deny"
    assert file_decision(env, "edit_file", "src/a.py", rules=rules).behavior == "allow"
    assert file_decision(env, "edit_file", "src/gen/x.py", "yolo", rules).behavior == "deny"
    assert file_decision(env, "edit_file", "lib/a.py", rules=rules).behavior == "ask"


def test_read_only_mode_is_a_ceiling_for_allow_rules(env):
    rules = R(allow=["bash(npm test)", "edit_file(src/**)"])
    assert bash_decision(env, "npm test", "read-only", rules).behavior == "deny"
    assert file_decision(env, "edit_file", "src/a.py", "read-only", rules).behavior == "deny"


def test_compound_needs_every_part_allowed(env):
    rules = R(allow=["bash(npm test)", "bash(npm run lint)"])
    assert bash_decision(env, "npm test && npm run lint", rules=rules).behavior == "allow"
    d = bash_decision(env, "npm test && npm publish", rules=rules)
    assert (d.behavior, d.suggested_rule) == ("ask", "bash(npm publish)")
    assert bash_decision(env, "npm test && make && npm publish", rules=rules).suggested_rule is None


def test_read_file_deny_rule_applies_to_shell(env):
    rules = R(deny=["read_file(secrets/**)"])
    d = bash_decision(env, "grep -r pass secrets/db.txt", "yolo", rules)
    assert d.behavior == "deny" and d.decided_by == f'deny rule "read_file(secrets/**)" in {SRC}'
    assert "names secrets/db.txt" in d.reason


# -- sensitive paths, escapes -------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["default", "accept-edits", "yolo"])
def test_sensitive_paths_ask_in_every_mode(env, mode):
    for path in (".env", "config/.env.prod", "~/.ssh/id_rsa", "certs/server.pem", "tls.key", ".netrc"):
        d = file_decision(env, "read_file", path, mode)
        assert d.behavior == "ask" and "sensitive" in d.reason, path
    assert bash_decision(env, "cat ~/.ssh/id_rsa", mode).behavior == "ask"
    assert bash_decision(env, "cat .env", mode).behavior == "ask"


def test_sensitive_allowed_only_by_a_rule_that_names_it(env):
    assert file_decision(env, "read_file", ".env", rules=R(allow=["read_file(**)"])).behavior == "ask"
    assert file_decision(env, "read_file", ".env", rules=R(allow=["read_file(.env)"])).behavior == "allow"
    assert bash_decision(env, "cat .env", rules=R(allow=["bash(cat *)"])).behavior == "ask"
    assert bash_decision(env, "cat .env", rules=R(allow=["bash(cat .env)"])).behavior == "allow"


def test_dotdot_escape_asks(env):
    d = file_decision(env, "read_file", "src/../../outside.txt")
    assert d.behavior == "ask" and d.reason.startswith("outside the project")
    assert file_decision(env, "read_file", "src/../README.md").behavior == "allow"
    assert file_decision(env, "edit_file", "../x.py", "accept-edits").behavior == "ask"


def test_symlink_escape_asks(env):
    root, home = env
    (root / "link").symlink_to(home / ".ssh" / "id_rsa")
    (root / "outdir").symlink_to(home)
    d = file_decision(env, "read_file", "link")
    assert d.behavior == "ask" and "sensitive" in d.reason
    assert file_decision(env, "edit_file", "outdir/notes.txt", "accept-edits").behavior == "ask"
    assert bash_decision(env, "cat link").behavior == "ask"
    # the pure resolver cannot see the link: the policy's resolver is what catches it
    assert file_decision(env, "read_file", "link", resolve=False).behavior == "allow"


def test_glob_naming_sensitive_file_asks(env):
    root, _ = env
    (root / "prod.key").write_text("k")
    assert bash_decision(env, "cat *").behavior == "ask"
    assert bash_decision(env, "cat src/*").behavior == "allow"


# -- other tools ------------------------------------------------------------------------------------
def test_mcp_tools_ask_unless_allowed(env):
    root, home = env
    args = ("gh__create_issue", "other", {"title": "x"}, False, False)
    assert decide(*args, "default", RuleSet(), root, home, source="mcp:gh").behavior == "ask"
    assert decide(*args, "yolo", RuleSet(), root, home, source="mcp:gh").behavior == "allow"
    assert decide(*args, "read-only", RuleSet(), root, home, source="mcp:gh").behavior == "deny"
    assert decide(*args, "default", R(allow=["gh__create_issue"]), root, home, source="mcp:gh").behavior == "allow"
    ro = decide("todo_write", "other", {}, True, False, "default", RuleSet(), root, home)
    assert ro.behavior == "allow"


def test_mcp_rules_name_a_server_or_one_tool_old_spelling_kept(env):
    root, home = env
    args = ("mcp__gh__create_issue", "other", {"title": "x"}, False, False, "default")

    def verdict(**rules: list[str]) -> str:
        return decide(*args, R(**rules), root, home, source="mcp:gh").behavior

    assert verdict(allow=["mcp__gh"]) == "allow"                      # every tool of the server
    assert verdict(allow=["mcp__gh__*"]) == "allow"
    assert verdict(allow=["mcp__gh__create_issue"]) == "allow"
    assert verdict(allow=["mcp__gh__list_issues"]) == "ask"           # another tool
    assert verdict(allow=["mcp__ghx"]) == "ask"                       # another server
    assert verdict(allow=["gh__create_issue"]) == "allow"             # the old spelling still covers it
    assert verdict(allow=["mcp__gh"], deny=["gh__create_issue"]) == "deny"   # an old deny still denies
    assert verdict(allow=["mcp__gh(title*)"]) == "ask"                # a pattern matches the input's values
    assert verdict(allow=["mcp__gh(x)"]) == "allow"
    assert decide("gh__x", "other", {}, False, False, "default", R(allow=["mcp__gh"]), root, home).behavior == "ask"


# -- rule syntax and files ------------------------------------------------------------------------------
def test_bash_patterns():
    assert bash_match("git push*", ["git", "push", "origin", "main"])
    assert bash_match("git push *", ["git", "push"])
    assert not bash_match("git push *", ["git", "pushx"])
    assert bash_match("pytest *", ["pytest", "-q", "tests/a b.py"])
    assert not bash_match("git status", ["git", "status", "-s"])


def test_gitignore_patterns():
    assert path_match("src/**", "src/a/b.py", "/p/src/a/b.py", "/h")
    assert path_match(".env*", "deep/dir/.env.local", "/p/deep/dir/.env.local", "/h")
    assert path_match("secrets", "secrets/a/b", "/p/secrets/a/b", "/h")
    assert not path_match("src/*.py", "src/a/b.py", "/p/src/a/b.py", "/h")
    assert path_match("~/notes/**", None, "/h/notes/x.md", "/h")
    assert not path_match("src/**", None, "/elsewhere/src/x", "/h")


@pytest.mark.parametrize("text,fragment", [
    ('allow = ["bash(git status"]', 'allow rule "bash(git status": expected TOOL or TOOL(PATTERN)'),
    ('deny = ["bash()"]', 'deny rule "bash()": empty pattern'),
    ('allow = "bash(ls)"', "'allow' must be a list"),
    ('mode = "careless"', "mode 'careless' is not one of"),
    ('allwo = []', "unknown key 'allwo'"),
    ('allow = [3]', "allow rule 3: must be a string"),
    ('allow = [', "invalid TOML"),
])
def test_malformed_files_name_file_rule_and_problem(tmp_path, text, fragment):
    root = tmp_path / "p"
    (root / ".axon").mkdir(parents=True)
    (root / ".axon" / "permissions.toml").write_text(text)
    with pytest.raises(ConfigError) as err:
        load_rules(root, tmp_path / "userconf")
    assert "permissions.toml" in str(err.value) and fragment in str(err.value)


def test_user_and_project_files_merge(tmp_path, monkeypatch):
    root, conf = tmp_path / "p", tmp_path / "conf"
    (root / ".axon").mkdir(parents=True)
    (conf / "axon").mkdir(parents=True)
    (conf / "axon" / "permissions.toml").write_text('mode = "yolo"\ndeny = ["bash(curl *)"]\n')
    (root / ".axon" / "permissions.toml").write_text('mode = "accept-edits"\nallow = ["bash(ls)"]\n')
    monkeypatch.setenv("XDG_CONFIG_HOME", str(conf))
    policy = load_policy(load_settings(root, env={"AXON_TRUST": "1"}), root)
    assert policy.mode == "accept-edits" and policy.mode_source == SRC
    assert [(r.action, r.text) for r in policy.rules_with_sources()] == [("deny", "bash(curl *)"), ("allow", "bash(ls)")]
    assert policy.rules_with_sources()[0].source == str(conf / "axon" / "permissions.toml")
    flagged = load_policy(load_settings(root, flags={"mode": "read-only"}, env={"AXON_TRUST": "1"}), root)
    assert flagged.mode == "read-only"


def test_remember_project_keeps_comments(tmp_path):
    root = tmp_path / "p"
    (root / ".axon").mkdir(parents=True)
    f = root / ".axon" / "permissions.toml"
    f.write_text('# keep me\nallow = ["bash(ls)"]  # inline\ndeny = []\n')
    policy = RulePolicy(load_rules(root, tmp_path / "c", FolderTrust(root, for_run=True)), "default", root, tmp_path)
    msg = policy.remember("bash(npm test)", "project")
    assert msg == 'added the allow rule "bash(npm test)" to .axon/permissions.toml'
    text = f.read_text()
    assert "# keep me" in text and "# inline" in text and '"bash(npm test)"' in text
    assert [r.text for r in load_rules(root, tmp_path / "c", FolderTrust(root, for_run=True)).rules] == [
        "bash(ls)", "bash(npm test)"]
    assert not [p for p in os.listdir(root / ".axon") if "axon-tmp" in p or p.endswith(".tmp")]


def test_remember_session_and_check_through_specs(tmp_path):
    root = tmp_path / "p"
    root.mkdir()
    policy = RulePolicy(RuleSet(), "default", root, tmp_path)
    ctx = ToolContext(project_root=root, state_dir=root / ".axon", session_id="s",
                      settings=load_settings(root, env={}).settings)
    bash = _spec("bash", "shell")
    assert policy.check(bash, CmdIn(command="npm test"), ctx).behavior == "ask"
    policy.remember("bash(npm test)", "session")
    d = policy.check(bash, CmdIn(command="npm test"), ctx)
    assert (d.behavior, d.decided_by) == ("allow", 'allow rule "bash(npm test)" in session')
    assert not (root / ".axon" / "permissions.toml").exists()
    policy.set_mode("yolo")
    assert policy.mode == "yolo" and policy.check(bash, CmdIn(command="make"), ctx).behavior == "allow"
    with pytest.raises(ConfigError):
        policy.set_mode("chaos")
    read = _spec("read_file", "read")
    assert policy.check(read, PathIn(path=".env"), ctx).behavior == "ask"
