"""``@path`` in a message: the named project file attached to the user's turn (capped, secrets masked).

Used by the REPL for what the user types and by custom commands for their templates (which
never attach a sensitive file such as ``.env``: a command file may come from the project). The
result is a typed ``UserTurn`` (``axon_cli/turn.py``); the loop renders it to the chat message.
"""

from __future__ import annotations

import re
from pathlib import Path

from axon_cli.masking import mask
from axon_cli.permissions.paths import sensitive_reason
from axon_cli.turn import Attachment, UserTurn, truncated_note

__all__ = ["attach_mentions", "attach_path", "MAX_ATTACH_BYTES", "MAX_ATTACH_LINES"]

MAX_ATTACH_BYTES = 100_000
MAX_ATTACH_LINES = 2000
_MENTION = re.compile(r"(?:^|(?<=\s))@([^\s@]+)")


def _read_capped(path: Path) -> tuple[str, str]:
    """The file's text capped at MAX_ATTACH_BYTES / MAX_ATTACH_LINES, and a note if cut."""
    with open(path, "rb") as fh:
        data = fh.read(MAX_ATTACH_BYTES + 1)
    if b"\0" in data[:8192]:
        raise ValueError("binary file")
    text = data[:MAX_ATTACH_BYTES].decode("utf-8", "replace")
    lines = text.split("\n")
    note = ""
    if len(lines) > MAX_ATTACH_LINES or len(data) > MAX_ATTACH_BYTES:
        lines = lines[:MAX_ATTACH_LINES]
        note = truncated_note(len(lines))
    return "\n".join(lines), note


def attach_mentions(text: str, root: Path, skip_sensitive: bool = False) -> tuple[UserTurn, list[str]]:
    """The user's turn: ``text`` with every ``@path`` naming a file inside the project attached
    (capped, masked; with ``skip_sensitive``, never a sensitive file), and one line per mention for
    the user."""
    attachments: list[Attachment] = []
    notes: list[str] = []
    seen: set[str] = set()
    root = root.resolve()
    for m in _MENTION.finditer(text):
        raw = m.group(1).rstrip(".,;:!?)'\"")
        path = (root / raw).resolve()
        if raw in seen or not path.is_file():
            continue
        seen.add(raw)
        attachment, line = attach_path(path, root, skip_sensitive, f"@{raw}")
        if attachment is not None:
            attachments.append(attachment)
        notes.append(line)
    return UserTurn(text, tuple(attachments)), notes


def attach_path(path: Path, root: Path, skip_sensitive: bool = False, named: str = "") -> tuple[Attachment | None, str]:
    """The file ``path`` (inside ``root``, resolved) attached as an ``@path`` mention would be, and the
    line for the user; None and why when it is not attached."""
    named = named or str(path)
    try:
        rel = path.relative_to(root.resolve()).as_posix()
    except ValueError:
        return None, f"{named}: outside the project, not attached"
    if skip_sensitive and sensitive_reason(rel):
        return None, f"{named}: a sensitive file, not attached"
    try:
        body, note = _read_capped(path)
    except (OSError, ValueError) as e:
        return None, f"{named}: not attached ({e})"
    return Attachment(rel, mask(body), note), f"attached {rel}" + (f" ({note.split(';')[0]})" if note else "")
