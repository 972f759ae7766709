"""``/jobs`` in the real ``axon chat``: it lists the session's background jobs, ``/jobs kill ID`` ends
one, and leaving chat ends the rest (checked in the process table)."""

from __future__ import annotations

from pathlib import Path

from tests.e2e.tools.test_background_e2e import live_with_env, new_token, stubborn_job, wait_until
from tests.e2e.ui.test_repl import Chat
from tests.fakeserver import text_reply, tool_reply


def test_slash_jobs_lists_kills_and_exit_ends_the_rest(project: Path, axon_env: dict[str, str], server) -> None:
    first, second = new_token(), new_token()
    server.add(tool_reply(("bash", {"command": stubborn_job(first), "run_in_background": True}),
                          ("bash", {"command": stubborn_job(second), "run_in_background": True})),
               text_reply("noted"))   # a claim ("started") would draw a guidance check
    c = Chat(project, axon_env, "--mode", "yolo", "--sandbox", "off")
    try:
        c.prompt()
        c.say("/jobs")
        c.expect("no background jobs in this session")
        c.say("start two")
        c.expect("noted")
        c.prompt()
        wait_until(lambda: len(live_with_env(f"JOBTAG={first}")) >= 2, "the first job's processes")
        wait_until(lambda: len(live_with_env(f"JOBTAG={second}")) >= 2, "the second job's processes")
        c.say("/jobs")
        c.expect("job-1  running")
        c.expect("job-2  running")
        c.say("/jobs kill job-1")
        c.expect("job-1: killed")
        assert live_with_env(f"JOBTAG={first}") == []
        assert live_with_env(f"JOBTAG={second}") != []
        c.say("/jobs kill job-9")
        c.expect("no background job 'job-9' in this session (jobs: job-1, job-2)")
        c.exit()
        assert len(server.requests) == 2
        assert live_with_env(f"JOBTAG={second}") == []
    finally:
        if c.child.isalive():
            c.child.terminate(force=True)
    assert "Traceback" not in c.raw
