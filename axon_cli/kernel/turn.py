"""The user's turn as a typed value: what the user wrote and the files attached to it.

``session/conversation/attach.py`` builds a ``UserTurn`` where ``@path`` mentions are expanded (an image file becomes
one of its ``images``); the loop keeps it
for the turn and renders it to the chat message only when the message is appended; the answer
guidance and the protocols read ``text`` and ``attachments`` (never the rendered message's layout).

The rendered message is the user's words, then ``ATTACHED`` and one ``<file path="…">`` block per
file. ``from_message`` is the one reader of that layout, for a message that exists only as text (a
string handed to ``Agent.run`` by code written before turns were typed): it gives back the turn whose
rendering is exactly that message, or a turn of words alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["UserTurn", "Attachment", "ImagePart", "ATTACHED", "truncated_note"]

ATTACHED = "\n\nAttached files:\n"       # between the user's words and the attached files
_BLOCK = re.compile(r'<file path="(.*?)">\n(.*?)\n</file>(?:\n(?=<file path=")|\Z)', re.S)
_NOTE = re.compile(r"\n\[(truncated to the first \d+ lines; use read_file with an offset for the rest)\]\Z")


@dataclass(frozen=True)
class ImagePart:
    """A picture a tool returned (base64 ``data``): a model that takes images gets it as an image
    content part after the tool results (``agent/loop/images.py``), any other a one-line placeholder."""

    mime_type: str
    data: str
    label: str = ""                   # where it came from: "image 1", a resource URI

    @property
    def size(self) -> int:
        """The picture's bytes (its base64 length less the padding)."""
        return len(self.data) * 3 // 4 - (len(self.data) - len(self.data.rstrip("=")))


def truncated_note(lines: int) -> str:
    """The note of a file cut to its first ``lines`` lines."""
    return f"truncated to the first {lines} lines; use read_file with an offset for the rest"


@dataclass(frozen=True)
class Attachment:
    """One attached project file: its project-relative path, its text as the model reads it
    (capped and masked), and a note when it was cut."""

    path: str
    text: str
    note: str = ""

    def render(self) -> str:
        extra = f"\n[{self.note}]" if self.note else ""
        return f'<file path="{self.path}">\n{self.text}{extra}\n</file>'


@dataclass(frozen=True)
class UserTurn:
    """What the user wrote (``text``), the files attached to it, in order, and its pictures (``@shot.png``,
    a pasted image path: checked and capped by ``imaging.py``; the loop sends them as image parts)."""

    text: str
    attachments: tuple[Attachment, ...] = ()
    images: tuple[ImagePart, ...] = ()

    @property
    def attached_paths(self) -> tuple[str, ...]:
        """The attached files' paths, pictures' (their labels) too: the model has seen them all."""
        return tuple(a.path for a in self.attachments) + tuple(i.label for i in self.images if i.label)

    def render(self) -> str:
        """The chat message: the words, then the attached files (none: the words alone)."""
        if not self.attachments:
            return self.text
        return self.text + ATTACHED + "\n".join(a.render() for a in self.attachments)

    @classmethod
    def of(cls, turn: UserTurn | str) -> UserTurn:
        """A turn as it is; a string is a message as rendered (``from_message``)."""
        return turn if isinstance(turn, UserTurn) else cls.from_message(turn)

    @classmethod
    def from_message(cls, message: str) -> UserTurn:
        """The turn whose rendering is exactly ``message``; a message not laid out as a rendered
        turn is words alone."""
        words, marker, files = message.partition(ATTACHED)
        attachments: list[Attachment] = []
        at = 0
        while marker and at < len(files):
            block = _BLOCK.match(files, at)
            if block is None:
                return cls(message)
            body = block.group(2)
            note = _NOTE.search(body)
            attachments.append(Attachment(block.group(1), body[:note.start()] if note else body,
                                          note.group(1) if note else ""))
            at = block.end()
        turn = cls(words, tuple(attachments))
        return turn if turn.render() == message else cls(message)
