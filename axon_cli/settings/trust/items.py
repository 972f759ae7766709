"""What a project ships that would widen what axon does, as items the user can trust one by one.

An item is identified by ``kind`` and ``key`` (stable across edits) and pinned by the digest of its
``content``: when the content changes, the item is pending again until the user trusts it anew.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, replace
from typing import Protocol

__all__ = ["WideningItem", "TrustView", "TrustEverything", "TrustNothing", "file_item", "with_pins"]

MAX_SHOWN_PINS = 6


@dataclass(frozen=True)
class WideningItem:
    kind: str       # mode | allow | sandbox | base_url | api_key | telemetry | mcp_server | hook | diagnostics | command | tool
    key: str        # identity within the kind: a rule's text, a server's name, a file's relative path
    source: str     # the project file it comes from, relative to the project root
    shows: str      # what the user is shown before trusting it: the full command line, the URL, the rule
    content: str    # what the digest pins; a change of it makes the item pending again
    pins: tuple[tuple[str, str], ...] = ()   # project files it runs: (relative path, sha256 or "absent")
    unknown: str = ""   # why axon cannot tell which project files it runs ("": it can)

    @property
    def id(self) -> str:
        return f"{self.kind}:{self.key}"

    @property
    def digest(self) -> str:
        content = self.content + ("\npins " + json.dumps(self.pins) if self.pins else "")
        return hashlib.sha256(content.encode("utf-8", "surrogateescape")).hexdigest()


def with_pins(item: WideningItem, pins: tuple[tuple[str, str], ...], unknown: str = "") -> WideningItem:
    """``item`` pinned to the content of the project files it runs as well (a hook's or MCP server's
    script, a build tool's Makefile …): a change of any of them makes it pending again. What the user
    is shown names those files — or, when axon cannot tell what it runs (``unknown``), says so and
    why: such an item is pinned to nothing and asks before every run outside the sandbox."""
    if unknown:
        return replace(item, shows=f"{item.shows}; cannot tell what this runs: {unknown}", unknown=unknown)
    if not pins:
        return item
    names = [rel + (" (not there yet)" if digest == "absent" else "") for rel, digest in pins]
    more = f" and {len(names) - MAX_SHOWN_PINS} more" if len(names) > MAX_SHOWN_PINS else ""
    shows = f"{item.shows}; pinned to the content of {', '.join(names[:MAX_SHOWN_PINS])}{more}"
    return replace(item, shows=shows, pins=pins)


def file_item(kind: str, rel_path: str, data: bytes, shows: str = "") -> WideningItem:
    """The item for a whole project file that runs code or grants tools (``.axon/tools/x.py``, a
    command with ``allowed_tools``): pinned by the exact bytes the loader read and will use."""
    return WideningItem(kind, rel_path, rel_path, shows or rel_path,
                        hashlib.sha256(data).hexdigest())


class TrustView(Protocol):
    """Whether a widening item from the project is in force (trusted, or trusted for this run)."""

    def allows(self, item: WideningItem) -> bool: ...


class TrustEverything:
    """The view for ``--trust``/``AXON_TRUST=1`` and for content that is the user's own."""

    def allows(self, item: WideningItem) -> bool:
        return True


class TrustNothing:
    """The view of a folder nobody has trusted: no project item widens anything."""

    def allows(self, item: WideningItem) -> bool:
        return False
