"""axon: a terminal coding agent for any OpenAI-compatible endpoint."""

from __future__ import annotations

from typing import Any

from axon_cli.kernel.version import __version__

__all__ = ["__version__", "tool"]


def __getattr__(name: str) -> Any:
    """``from axon_cli import tool`` (the decorator for project tools), imported on first use so that
    ``axon --help`` does not load pydantic."""
    if name == "tool":
        from axon_cli.session.extend.pytools import tool

        return tool
    raise AttributeError(f"module 'axon_cli' has no attribute {name!r}")
