"""tool_search through dispatch: ranking, activation, select:, no match; and the ranking module."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from axon_cli.session.conversation.context import build_system_prompt
from axon_cli.settings.config import Settings
from axon_cli.tools.builtin.tool_search.ranking import rank_tools, stem, tokenize
from axon_cli.tools.dispatch import CallResult, Dispatcher, ToolCall
from axon_cli.tools.registry import ToolRegistry
from axon_cli.tools.spec import ToolContext, ToolSpec


class AnyInput(BaseModel):
    repo: str | None = None


def mcp(name: str, description: str) -> ToolSpec[Any]:
    return ToolSpec(name=name, description=description, input_model=AnyInput, handler=lambda _i, _c: "ok",
                    deferred=True, source="mcp:" + name.split("__")[0])


MCP_TOOLS = [
    mcp("github__create_issue", "Create a new issue in a GitHub repository."),
    mcp("github__list_pull_requests", "List pull requests of a repository, filtered by state."),
    mcp("github__searchCode", "Search code across GitHub repositories."),
    mcp("browser__take_screenshot", "Capture a PNG screenshot of the current web page."),
    mcp("browser__navigate", "Open a URL in the browser."),
]


@pytest.fixture
def env(tmp_path: Path):  # type: ignore[no-untyped-def]
    registry = ToolRegistry.with_builtins()
    for spec in MCP_TOOLS:
        registry.register(spec)
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s",
                      settings=Settings(), registry=registry)
    return Dispatcher(registry, ctx), registry


IDS = itertools.count()


def search(dispatcher: Dispatcher, query: str) -> CallResult:
    return dispatcher.dispatch(ToolCall(id=f"c{next(IDS)}", name="tool_search",
                                        arguments=json.dumps({"query": query})))


def test_search_activates_best_matches_with_descriptions(env):
    dispatcher, registry = env
    r = search(dispatcher, "save a note to memory")
    assert r.ok
    lines = r.content.splitlines()
    assert lines[0] == "Activated 2 tools; call them from your next reply on:"
    assert lines[1].startswith("- memory_save(name, content): Save a note to project memory")
    assert lines[2].startswith("- memory_read(name?): Read a note from project memory")
    assert registry.activated() == ["memory_read", "memory_save"]
    assert {"memory_save", "memory_read"} <= {t["function"]["name"] for t in registry.openai_tools()}
    assert r.display == {"activated": ["memory_save", "memory_read"]}


@pytest.mark.parametrize("query, first", [
    ("open a github issue", "github__create_issue"),
    ("pull request list", "github__list_pull_requests"),
    ("PR reviews pulls", "github__list_pull_requests"),
    ("screenshots of the page", "browser__take_screenshot"),
    ("search code", "github__searchCode"),
    ("plan my tasks as a checklist", "todo_write"),
    ("remember something for later sessions", "memory_save"),
    ("navigating to a url", "browser__navigate"),
])
def test_ranking_finds_the_right_tool_first(env, query, first):
    dispatcher, registry = env
    ranked = rank_tools(query, [s for s in registry.all() if s.deferred])
    assert ranked[0].spec.name == first, [(x.spec.name, round(x.score, 2)) for x in ranked]
    r = search(dispatcher, query)
    assert r.content.splitlines()[1].startswith(f"- {first}(")


def test_at_most_three_activated_and_weak_matches_dropped(env):
    dispatcher, registry = env
    r = search(dispatcher, "github")
    assert registry.activated() == ["github__create_issue", "github__list_pull_requests", "github__searchCode"]
    assert r.content.startswith("Activated 3 tools")
    assert "browser" not in r.content


def test_exact_name_wins(env):
    dispatcher, registry = env
    search(dispatcher, "browser__navigate")
    assert registry.activated() == ["browser__navigate"]


def test_searching_again_reports_already_active(env):
    dispatcher, registry = env
    search(dispatcher, "todo checklist")
    r = search(dispatcher, "todo checklist")
    assert r.content.splitlines()[:2] == ["Already active:", r.content.splitlines()[1]]
    assert r.content.splitlines()[1].startswith("- todo_write(todos): ")
    assert registry.activated() == ["todo_write"]


def test_no_match_lists_deferred_names(env):
    dispatcher, registry = env
    r = search(dispatcher, "kubernetes deployment")
    assert r.ok
    first, second = r.content.splitlines()
    assert first == "No deferred tool matches 'kubernetes deployment'."
    assert second.startswith("Deferred tools not yet active: memory_save, memory_read, bash_output, kill_shell, "
                             "todo_write, web_fetch, github__")
    assert registry.activated() == []


def test_select_activates_exact_names_and_reports_unknown(env):
    dispatcher, registry = env
    r = search(dispatcher, "select: todo_write , memory_read,nonexistent")
    assert registry.activated() == ["memory_read", "todo_write"]
    assert r.content.splitlines()[0] == "Activated 2 tools; call them from your next reply on:"
    assert r.content.splitlines()[-1] == "No tool named: nonexistent."


def test_select_of_core_tool_is_already_active(env):
    dispatcher, registry = env
    r = search(dispatcher, "select:tool_search")
    assert r.content.splitlines()[0] == "Already active:" and registry.activated() == []


def test_select_without_names_and_empty_query_are_errors(env):
    dispatcher, _ = env
    assert search(dispatcher, "select:").content.startswith("Error: select: needs tool names")
    assert search(dispatcher, "   ").content.startswith("Error: the query is empty")


def test_activated_tool_then_runs_through_dispatch(env):
    dispatcher, _ = env
    before = dispatcher.dispatch(ToolCall(id="a", name="browser__navigate", arguments="{}"))
    assert "deferred and not active" in before.content
    search(dispatcher, "select:browser__navigate")
    after = dispatcher.dispatch(ToolCall(id="b", name="browser__navigate", arguments="{}"))
    assert (after.ok, after.content) == (True, "ok")


def test_system_prompt_lists_deferred_tools_one_line_each(tmp_path):
    registry = ToolRegistry.with_builtins()
    registry.register(MCP_TOOLS[0])
    prompt = build_system_prompt(Settings(), registry)
    block = prompt.split("call tool_search with keywords to activate them:\n", 1)[1]
    listed = [line for line in block.splitlines() if line.startswith("- ")]
    assert "- memory_save: save a named note to project memory (persists across sessions)" in listed
    assert "- github__create_issue: Create a new issue in a GitHub repository." in listed
    assert not any(line.startswith("- tool_search") for line in listed)
    registry.activate(["memory_save"])      # the prompt heads every request: activating keeps it as it was
    assert registry.is_active("memory_save") and build_system_prompt(Settings(), registry) == prompt


@pytest.mark.parametrize("word, stemmed", [
    ("memories", "memory"), ("notes", "note"), ("saving", "sav"), ("matches", "match"),
    ("running", "run"), ("called", "call"), ("process", "process"), ("status", "status"),
    ("string", "string"), ("files", "file"),
])
def test_stem(word, stemmed):
    assert stem(word) == stemmed


def test_tokenize_splits_names_and_drops_stopwords():
    assert tokenize("github__createIssue") == ["github", "create", "issue"]
    assert tokenize("take_screenshot") == ["take", "screenshot"]
    assert tokenize("Save a note to the memory") == ["save", "note", "memory"]
    assert tokenize("parseHTTPResponse") == ["parse", "http", "response"]


def test_name_match_outranks_description_match():
    a = mcp("x__deploy", "Ship the app.")
    b = mcp("x__ship", "Deploy the app.")
    assert [r.spec.name for r in rank_tools("deploy", [b, a])] == ["x__deploy", "x__ship"]
