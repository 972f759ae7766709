"""Whether a shell command deletes or overwrites something (``rm``, ``git clean``, ``truncate``, a
``>`` redirect, ``mv`` over a file …), from the shell analysis the permission rules use
(``shell/analyze``). The guidance never writes such a command into a message it sends
back unless the user asked for exactly that deletion: a compliant model would run it. A move that
replaces nothing (``mv -n a b``) loses no content: the analysis lists its source as moved, not
deleted, and it is not counted here (the permission check still asks before it in ``default``).
"""

from __future__ import annotations

__all__ = ["destroys"]


def destroys(command: str) -> list[str]:
    """What ``command`` deletes or overwrites (paths, or the reason when it names none); [] when it
    does neither. A command the analysis cannot parse counts as destroying (``["unparsed"]``)."""
    from axon_cli.shell.analyze import analyze  # the shell parser, only when asked

    result = analyze(command)
    if not result.parsed:
        return ["unparsed"]
    found = [p for unit in result.units for p in (*unit.deletes, *unit.overwrites)]
    if result.destructive and not found:
        found = list(result.destructive_reasons)
    return found
