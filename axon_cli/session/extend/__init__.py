"""Extending axon per project and per user: hooks, custom commands, Python tools, sub-agents.

Nothing is imported here: ``from axon_cli import tool`` must stay cheap, and each module is
loaded only by the part of axon that uses it.
"""

__all__: list[str] = []
