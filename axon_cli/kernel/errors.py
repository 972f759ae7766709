"""Exceptions raised by axon's core.

    AxonError                 every error meant for the user: one clear line, never a traceback
    ├── ConfigError           a bad config/permissions file, key, type or missing setting (exit 1)
    ├── UsageError            bad command-line usage (exit 2)
    └── LLMError              the endpoint failed after retries, or refused the request (exit 1)
        └── ContextTooLong    the request was rejected as longer than the model's context

Tool handlers raise ``ToolError`` (in ``axon_cli.tools.spec``) for a failure the model should
read; it never leaves dispatch.
"""

from __future__ import annotations

__all__ = ["AxonError", "ConfigError", "UsageError", "LLMError", "ContextTooLong"]


class AxonError(Exception):
    """An error with a message fit to show the user as is."""

    exit_code = 1


class ConfigError(AxonError):
    exit_code = 1


class UsageError(AxonError):
    exit_code = 2


class LLMError(AxonError):
    exit_code = 1


class ContextTooLong(LLMError):
    pass
