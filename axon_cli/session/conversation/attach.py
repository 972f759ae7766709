"""``@path`` in a message: the named project file attached to the user's turn (capped, secrets masked);
an image file (``@shot.png``) becomes one of the turn's pictures, checked and capped by ``imaging.py``.

Used by the REPL for what the user types and by custom commands for their templates (which
never attach a sensitive file such as ``.env``: a command file may come from the project). The
result is a typed ``UserTurn`` (``axon_cli/kernel/turn.py``); the loop renders it to the chat message.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from urllib.parse import unquote

from axon_cli.kernel.turn import Attachment, ImagePart, UserTurn, truncated_note
from axon_cli.machinery.masking import mask
from axon_cli.policy.paths import sensitive_reason

__all__ = ["attach_mentions", "attach_path", "attach_pasted", "attach_picture", "MAX_ATTACH_BYTES", "MAX_ATTACH_LINES"]

MAX_ATTACH_BYTES = 100_000
MAX_TURN_IMAGE_BYTES = 5_000_000      # the pictures of one turn together, as sent
MAX_ATTACH_LINES = 2000
_MENTION = re.compile(r"(?:^|(?<=\s))@([^\s@]+)")
# ``imaging`` (the pictures' checks) is imported when a message names a file, not at start-up.


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


def attach_picture(path: Path, name: str, images: list[ImagePart]) -> str:
    """Add the picture in ``path`` to ``images``; the line for the user (why not, when it cannot be)."""
    from axon_cli.machinery.media.imaging import ImageError, load_image

    try:
        picture = load_image(path, name)
    except ImageError as e:
        return f"{name}: not attached ({e})"
    if picture.part.size + sum(i.size for i in images) > MAX_TURN_IMAGE_BYTES:
        return f"{name}: not attached (the turn's pictures would pass {MAX_TURN_IMAGE_BYTES:,} bytes)"
    images.append(picture.part)
    return f"attached image {name} ({picture.describe()})"


def attach_mentions(text: str, root: Path, skip_sensitive: bool = False,
                    images_only: bool = False) -> tuple[UserTurn, list[str]]:
    """The user's turn: ``text`` with every ``@path`` naming a file inside the project attached
    (capped, masked; with ``skip_sensitive``, never a sensitive file; an image file as a picture),
    and one line per mention for the user. With ``images_only`` (``axon run``), only pictures."""
    attachments: list[Attachment] = []
    images: list[ImagePart] = []
    notes: list[str] = []
    seen: set[str] = set()
    root = root.resolve()
    for m in _MENTION.finditer(text):
        raw = m.group(1).rstrip(".,;:!?)'\"")
        path = (root / raw).resolve()
        if raw in seen or not path.is_file():
            continue
        from axon_cli.machinery.media.imaging import is_image_file

        picture = is_image_file(path)
        if images_only and not picture:
            continue
        seen.add(raw)
        if not picture:
            attachment, line = attach_path(path, root, skip_sensitive, f"@{raw}")
            if attachment is not None:
                attachments.append(attachment)
            notes.append(line)
            continue
        try:
            rel = path.relative_to(root).as_posix()
        except ValueError:
            notes.append(f"@{raw}: outside the project, not attached")
            continue
        if skip_sensitive and sensitive_reason(rel):
            notes.append(f"@{raw}: a sensitive file, not attached")
            continue
        notes.append(attach_picture(path, rel, images))
    return UserTurn(text, tuple(attachments), tuple(images)), notes


def pasted_image(line: str, root: Path) -> Path | None:
    """The image file a line names when the line is nothing but its path, as terminals paste or drop
    one (``/tmp/x.png``, ``'/tmp/my shot.png'``, ``/tmp/my\\ shot.png``, ``file:///tmp/x.png``); else None."""
    text = line.strip()
    if not text or "\n" in text:
        return None
    from axon_cli.machinery.media.imaging import is_image_file

    if text.startswith("file://"):
        text = unquote(text[len("file://"):])
    candidates = [text]                      # a path with spaces pasted as it is
    try:
        words = shlex.split(text)
    except ValueError:
        words = []
    if len(words) == 1:
        candidates.append(words[0])
    for candidate in candidates:
        path = Path(candidate).expanduser()
        path = path if path.is_absolute() else root / path
        try:
            if path.is_file() and is_image_file(path):
                return path
        except OSError:
            continue
    return None


def attach_pasted(line: str, root: Path) -> tuple[UserTurn, list[str]] | None:
    """A chat line that is a pasted image path: the turn carrying that picture (the user put it there,
    so it may live outside the project), and the line for the user; None for any other line."""
    path = pasted_image(line, root)
    if path is None:
        return None
    images: list[ImagePart] = []
    note = attach_picture(path, path.name, images)
    return UserTurn(line.strip(), (), tuple(images)), [note]


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
