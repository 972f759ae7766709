"""Class E of issue 32, item 8: jobs end with the session, all of them.

The attack: a command the model runs — a background job approved to run outside the sandbox
(``outside_sandbox`` approved under ``auto``; ``--sandbox off``, what ``auto`` becomes without
bubblewrap), or a foreground one — leaves a
process behind that has left the command's process group *and* cleared its environment (so no
marker finds it): ``setsid env -i …``, a double fork, ``setsid -f``, a Python daemon. ``axon run``
then ends normally. The effect judged: no process carrying the form's token in its argv is alive
once axon has exited (polled with a 20 s deadline). The sandbox on (``auto``) is checked too. The
four forms of one (job or foreground, sandbox) run as four calls of one session, each with its own
token: each case's test judges its own escapee.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Ran, make_axon_env, make_project, run_axon_in
from tests.e2e.faults.lifetime import end_all, live, new_token, spinner, wait_gone, wait_until
from tests.fakeserver import Reply, ScriptedServer, text_reply, tool_reply

FORMS = {
    "setsid_env_i": "setsid env -i {spin} &",
    "double_fork": "( setsid env -i {spin} & ) ; :",
    "setsid_fork_flag": "setsid -f env -i {spin}",
    "python_daemon": ("env -i python3 -c 'import os, time; os.fork() and os._exit(0); os.setsid(); "
                      "os.fork() and os._exit(0); time.sleep(600)' {token}-daemon"),
}


SANDBOXES = ["off", "auto", "approved-outside"]
BACKGROUNDS = {"job": True, "foreground": False}
# one case per (form, job or foreground, sandbox), grouped by session: the forms of one (job or
# foreground, sandbox) run in one axon session, each with its own token and marker file
CASES = [(form, bg, sandbox) for bg in BACKGROUNDS for sandbox in SANDBOXES for form in sorted(FORMS)]


@dataclass
class Session:
    ran: Ran
    tokens: dict[str, str]           # form -> its token


@pytest.fixture(scope="module")
def sessions(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str, str], tuple[Session, Path]]]:
    """``session(bg, sandbox)``: one ``axon run`` (made on first need) whose model runs every form in
    turn, each as its own bash call (a job, or in the foreground) with its own token, each leaving its
    escapee and touching ``.left-<form>``; then the run ends normally. Each form's test judges its own
    escapee. The processes of every token are killed at the end, whatever was judged."""
    made: dict[tuple[str, str], tuple[Session, Path]] = {}

    def session(bg: str, sandbox: str) -> tuple[Session, Path]:
        if (bg, sandbox) in made:
            return made[bg, sandbox]
        background = BACKGROUNDS[bg]
        project = make_project(tmp_path_factory.mktemp(f"escape-{bg}-{sandbox}"))
        tokens = {form: new_token() for form in sorted(FORMS)}
        replies: list[Reply | Callable[[dict[str, Any]], Reply]] = []
        for form, token in tokens.items():
            leave = FORMS[form].format(spin=spinner(token, "escapee"), token=token)
            call = {"command": f"{leave}\ntouch .left-{form}\n" + ("sleep 300" if background else "true"),
                    "run_in_background": background}
            if sandbox == "approved-outside":             # an auto sandbox, the call approved to leave it
                call["outside_sandbox"] = True
            replies.append(tool_reply(("bash", call)))

        def after(_body: dict[str, Any]) -> Reply:   # the jobs' escapees run now, while the session still does
            if background:
                for form, token in tokens.items():
                    wait_until(lambda form=form, token=token: (project / f".left-{form}").exists() and any(
                        c.strip().endswith(("escapee", "daemon")) for c in live(token).values()),
                        f"the escapee of {form} to run")
            return text_reply("left them running")

        with ScriptedServer([*replies, after]) as server:
            ran = run_axon_in(project, make_axon_env(project, server.url), "run", "start it", "--yes",
                              "--sandbox", "auto" if sandbox == "approved-outside" else sandbox)
        made[bg, sandbox] = (Session(ran, tokens), project)
        return made[bg, sandbox]

    yield session
    for one, _project in made.values():
        for token in one.tokens.values():
            end_all(token)


@pytest.mark.parametrize("form,bg,sandbox", CASES, ids=[f"{f}-{b}-{s}" for f, b, s in CASES])
def test_an_escaped_detached_process_ends_with_the_session(sessions, form, bg, sandbox):
    one, project = sessions(bg, sandbox)
    token = one.tokens[form]
    try:
        assert one.ran.code == 0, one.ran.stderr
        assert ("[outside the sandbox" in one.ran.stderr) == (sandbox == "approved-outside")
        assert (project / f".left-{form}").exists(), one.ran.stderr
        wait_gone(token)
    finally:
        end_all(token)
