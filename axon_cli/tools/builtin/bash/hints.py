"""What the ``bash`` tool tells the model about long-running commands.

A server or watcher run in the foreground holds the turn until its timeout; when such a command
(by its words: ``http.server``, ``npm run dev``, ``--watch``, ``tail -f`` …) times out, the result
says to run it with ``run_in_background``. A background job under the sandbox is in the session's
loopback-only network (or, where that cannot be shared, its own), so the start result says who can
reach the ports it opens.
"""

from __future__ import annotations

import re

__all__ = ["looks_long_running", "background_note", "BACKGROUND_HINT"]

BACKGROUND_HINT = ("[this looks like a server or watcher, which does not end by itself: run it with "
                   "run_in_background=true, then read its output with bash_output(job_id) and stop it "
                   "with kill_shell(job_id)]")

_LONG_RUNNING = re.compile(
    r"""\b(?:http\.server|SimpleHTTPServer|runserver|uvicorn|gunicorn|hypercorn|flask\s+run|streamlit\s+run
    |(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:dev|start|serve|watch)\b|vite\b(?!\s+(?:build|preview))|next\s+dev|nodemon|webpack\s+serve
    |ng\s+serve|jekyll\s+serve|hugo\s+server|mkdocs\s+serve|rails\s+s(?:erver)?\b|php\s+-S|live-server
    |docker\s+compose\s+up|docker-compose\s+up|tail\s+-[a-zA-Z]*[fF]|watch\s|entr\b|inotifywait\s+-m)
    |--watch\b""", re.X)


def looks_long_running(command: str) -> bool:
    """Whether ``command`` reads like a server or watcher (something that runs until stopped)."""
    return bool(_LONG_RUNNING.search(command))


def background_note(sandbox_mode: str, may_leave: bool, shared_network: bool = False) -> str:
    """What a job started under ``sandbox_mode`` should know about its network, or "".
    ``shared_network``: the session's sandboxed commands share one loopback-only namespace."""
    if sandbox_mode == "off":
        return ""
    if shared_network:
        return ("[sandbox: ports this job opens are reachable on 127.0.0.1 from the session's other "
                "sandboxed bash calls, not from outside the sandbox; there is no outside network.]")
    how = (" To serve other commands, start it with outside_sandbox=true (that asks first)."
           if may_leave else "")
    return ("[sandbox: this job has the sandbox's own network, so ports it opens are reachable only from "
            f"inside this same command, not from other bash calls.{how}]")
