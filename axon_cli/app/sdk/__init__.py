"""axon as a Python library: ``run`` (one prompt, a ``Result``), ``query`` (its events as an async
iterator) and ``Session`` (several prompts, ``undo``). Every safety rule of the CLI applies
unchanged (trust, sandbox, masking, modes, undo); nothing prints or reads the terminal.

    from axon_cli import sdk
    result = sdk.run("what version is this package?", cwd="path/to/project")
    print(result.result)
"""

from __future__ import annotations

from typing import Any

from axon_cli.app.sdk.query import query
from axon_cli.app.sdk.result import Result
from axon_cli.app.sdk.sdk_session import Session
from axon_cli.kernel.events import ApprovalRequest, Event

__all__ = ["run", "query", "Session", "Result", "ApprovalRequest", "Event"]


def run(prompt: str, **options: Any) -> Result:
    """Open a session (``Session``'s options: cwd, mode, model, base_url, api_key, max_turns, approve,
    tools, session_id, sandbox, trust), send ``prompt``, close it, and return the ``Result``."""
    with Session(**options) as session:
        return session.send(prompt)
