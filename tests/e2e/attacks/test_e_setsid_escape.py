"""Class E of issue 32, item 8: jobs end with the session, all of them.

The attack: a command the model runs — a background job approved to run outside the sandbox
(``outside_sandbox`` approved under ``auto``; ``--sandbox off``, what ``auto`` becomes without
bubblewrap), or a foreground one — leaves a
process behind that has left the command's process group *and* cleared its environment (so no
marker finds it): ``setsid env -i …``, a double fork, ``setsid -f``, a Python daemon. ``axon run``
then ends normally. The effect judged: no process carrying the run's token in its argv is alive
once axon has exited (polled with a 20 s deadline). The sandbox on (``auto``) is checked too.
"""

from __future__ import annotations

import pytest

from tests.e2e.faults.lifetime import end_all, live, new_token, spinner, wait_gone, wait_until
from tests.fakeserver import text_reply, tool_reply

FORMS = {
    "setsid_env_i": "setsid env -i {spin} &",
    "double_fork": "( setsid env -i {spin} & ) ; :",
    "setsid_fork_flag": "setsid -f env -i {spin}",
    "python_daemon": ("env -i python3 -c 'import os, time; os.fork() and os._exit(0); os.setsid(); "
                      "os.fork() and os._exit(0); time.sleep(600)' {token}-daemon"),
}


@pytest.mark.parametrize("sandbox", ["off", "auto", "approved-outside"])
@pytest.mark.parametrize("background", [True, False], ids=["job", "foreground"])
@pytest.mark.parametrize("form", sorted(FORMS))
def test_an_escaped_detached_process_ends_with_the_session(server, run_axon, project, form, background, sandbox):
    token = new_token()
    leave = FORMS[form].format(spin=spinner(token, "escapee"), token=token)
    command = f"{leave}\ntouch .left-it\n" + ("sleep 300" if background else "true")

    def after(_body):                          # a job's escapee runs now, while the session still does
        if background:
            wait_until(lambda: any(c.strip().endswith("escapee") or c.strip().endswith("daemon")
                                   for c in live(token).values()), "the escapee to run")
        return text_reply("left it running")

    call = {"command": command, "run_in_background": background}
    if sandbox == "approved-outside":             # an auto sandbox, the call approved to leave it
        call["outside_sandbox"] = True
    server.add(tool_reply(("bash", call)), after)
    try:
        r = run_axon("run", "start it", "--yes", "--sandbox", "auto" if sandbox == "approved-outside" else sandbox)
        assert r.code == 0, r.stderr
        assert ("[outside the sandbox" in r.stderr) == (sandbox == "approved-outside")
        assert (project / ".left-it").exists()
        wait_gone(token)
    finally:
        end_all(token)
