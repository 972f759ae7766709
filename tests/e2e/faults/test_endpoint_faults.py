"""An endpoint that answers with anything — garbage headers, bodies that are not JSON, broken SSE,
HTML from a proxy, silence, a reset — ends the real ``axon run`` with one error line on stderr and
exit 1, within ``request_timeout × max_attempts`` (plus start-up; the exact figure is not timed
here), never a traceback; the same in ``axon chat``, which stays usable. Replies that only look odd
but carry an answer (a lying content type, arguments sent as an object) are used."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.faults.hostile_endpoint import SCENARIOS, HostileEndpoint

REQUEST_TIMEOUT, MAX_ATTEMPTS = 3, 2
# the scenarios that end only by the request timeout: 1 s still sees several keep-alives (every 0.3 s)
# or empty chunks (every 0.2 s) arrive in each attempt without resetting it, and saves 4 s a run; the
# others keep 3 s, so that on a busy machine the timeout never ends them before what they test does
TIMEOUT_ONLY = {"keepalive_forever": 1, "empty_choices_forever": 1, "never_answers": 1}
BOUND_S = REQUEST_TIMEOUT * MAX_ATTEMPTS + 30      # generous: start-up on a busy machine included

FAILING = ["retry_after_garbage", "retry_after_huge", "not_json_200", "malformed_sse", "keepalive_forever",
           "proxy_502_html", "html_401", "html_403_untitled", "truncated_chunked", "reset_mid_stream",
           "no_done_no_finish", "done_before_choice", "empty_choices_forever", "null_choices", "gzip_garbage",
           "gzip_of_html", "huge_headers", "hundred_mb_body", "invalid_utf8", "redirect_to_nowhere",
           "never_answers", "closes_at_once", "garbage_status_line", "json_array_200", "sse_data_array",
           "sse_wrong_shapes", "error_event_in_stream"]
ANSWERING = {"content_type_lies": "hi", "tool_args_not_string": "done"}
# what a reader of the error line must see instead of the markup: the page's title or first words
PAGES = {"proxy_502_html": ("502", "Bad Gateway"), "html_401": ("401", "Sign in - Corp SSO"),
         "html_403_untitled": ("403", "Access denied"), "gzip_of_html": ("500", "Bad Gateway")}


def test_the_table_covers_every_scenario() -> None:
    assert sorted(FAILING + list(ANSWERING)) == sorted(SCENARIOS)


@pytest.fixture
def limits(project: Path, request: pytest.FixtureRequest) -> None:
    config = project.parent / "home" / ".config" / "axon"
    config.mkdir(parents=True, exist_ok=True)
    timeout = TIMEOUT_ONLY.get(request.node.callspec.params.get("endpoint"), REQUEST_TIMEOUT)
    (config / "config.toml").write_text(f"request_timeout = {timeout}\nmax_attempts = {MAX_ATTEMPTS}\n"
                                        "retry_base_delay = 0.2\n")


@pytest.fixture
def endpoint(request: pytest.FixtureRequest) -> Iterator[HostileEndpoint]:
    with HostileEndpoint(SCENARIOS[request.param]) as ep:
        yield ep


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("axon: error:")]


@pytest.mark.parametrize("endpoint", FAILING, indirect=True)
def test_a_hostile_reply_is_one_line_and_exit_1(endpoint, limits, run_axon, project) -> None:
    # the subprocess must end well within the bound (TimeoutExpired fails the test)
    r = run_axon("run", "say hi", "--sandbox", "off", env={"OPENAI_BASE_URL": endpoint.url}, timeout=BOUND_S)
    assert "Traceback" not in r.stderr and "Error:" not in r.stderr.replace("axon: error:", ""), r.stderr
    assert r.code == 1, r.stderr
    assert len(error_lines(r.stderr)) == 1, r.stderr
    assert all(len(line) < 400 for line in r.stderr.splitlines()), r.stderr
    assert endpoint.requests >= 1 and r.stdout == ""


@pytest.mark.parametrize("endpoint", list(PAGES), indirect=True)
def test_an_html_page_is_reported_by_its_status_and_title(endpoint, limits, run_axon) -> None:
    r = run_axon("run", "say hi", "--sandbox", "off", env={"OPENAI_BASE_URL": endpoint.url}, timeout=BOUND_S)
    [line] = error_lines(r.stderr)
    status, words = PAGES[_name(endpoint)]
    assert status in line and words in line, line
    assert "<" not in line, line


@pytest.mark.parametrize("endpoint", list(ANSWERING), indirect=True)
def test_an_odd_but_whole_reply_is_used(endpoint, limits, run_axon, project) -> None:
    r = run_axon("run", "say hi", "--sandbox", "off", env={"OPENAI_BASE_URL": endpoint.url}, timeout=BOUND_S)
    assert r.code == 0, r.stderr
    assert r.stdout.strip() == ANSWERING[_name(endpoint)]
    assert "Traceback" not in r.stderr


def _name(endpoint: HostileEndpoint) -> str:
    return next(name for name, fn in SCENARIOS.items() if fn is endpoint.scenario)


@pytest.mark.parametrize("endpoint", ["keepalive_forever", "retry_after_garbage", "malformed_sse"], indirect=True)
def test_chat_reports_the_fault_in_one_line_and_keeps_its_prompt(endpoint, limits, chat) -> None:
    c = chat("--sandbox", "off", OPENAI_BASE_URL=endpoint.url)
    c.say("say hi")
    c.expect("model request failed after", timeout=BOUND_S)
    c.prompt()                   # the REPL is still there; the fixture checks there was no traceback
    c.say("/cost")
    c.expect("requests:", timeout=30)
    assert "Traceback" not in c.raw
