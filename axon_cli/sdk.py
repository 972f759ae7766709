"""The public import path of the Python SDK, ``axon_cli.sdk`` (the SDK itself is ``axon_cli/app/sdk/``)."""

from __future__ import annotations

from axon_cli.app.sdk import ApprovalRequest, Event, Result, Session, query, run
from axon_cli.kernel.errors import AxonError

__all__ = ["run", "query", "Session", "Result", "ApprovalRequest", "Event", "AxonError"]
