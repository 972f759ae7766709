"""Unit: pictures in the user's turn (``session/conversation/attach.py``): ``@shot.png`` becomes one of the turn's
images (``axon run`` attaches only pictures), a chat line that is a pasted image path brings that
picture, a broken picture is one line and the words go on."""

from __future__ import annotations

import base64
import io
from pathlib import Path

import pytest
from PIL import Image

from axon_cli.session.conversation.attach import attach_mentions, attach_pasted, pasted_image


def write_png(path: Path, size: tuple[int, int] = (6, 4)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, "green").save(buffer, "PNG")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())
    return buffer.getvalue()


def test_an_image_mention_becomes_a_picture_and_a_text_mention_stays_an_attachment(tmp_path: Path) -> None:
    data = write_png(tmp_path / "shots" / "a.png")
    (tmp_path / "notes.md").write_text("the notes\n")
    turn, notes = attach_mentions("see @shots/a.png and @notes.md", tmp_path)
    assert turn.attached_paths == ("notes.md", "shots/a.png")
    assert [base64.b64decode(i.data) for i in turn.images] == [data] and turn.images[0].label == "shots/a.png"
    assert f"attached image shots/a.png (PNG image, 6x4, {len(data)} bytes)" in notes
    assert "<file path=\"shots/a.png\">" not in turn.render()


def test_a_turn_holds_at_most_its_byte_budget_of_pictures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("axon_cli.session.conversation.attach.MAX_TURN_IMAGE_BYTES", 200)
    for name in ("a.png", "b.png", "c.png"):
        write_png(tmp_path / name, (6, 4))                 # about 70 bytes each
    turn, notes = attach_mentions("@a.png @b.png @c.png", tmp_path)
    assert [i.label for i in turn.images] == ["a.png", "b.png"]
    assert "c.png: not attached (the turn's pictures would pass 200 bytes)" in notes


def test_images_only_leaves_text_mentions_as_typed(tmp_path: Path) -> None:
    write_png(tmp_path / "a.png")
    (tmp_path / "notes.md").write_text("the notes\n")
    turn, notes = attach_mentions("see @a.png and @notes.md", tmp_path, images_only=True)
    assert turn.attachments == () and len(turn.images) == 1 and turn.render() == "see @a.png and @notes.md"
    assert len(notes) == 1


def test_a_picture_outside_the_project_or_sensitive_or_broken_is_not_attached(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    write_png(tmp_path / "outside.png")
    write_png(root / ".env.png")
    (root / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really")
    turn, notes = attach_mentions("@../outside.png @.env.png @bad.png", root, skip_sensitive=True)
    assert turn.images == ()
    assert "@../outside.png: outside the project, not attached" in notes
    assert any(n.startswith("bad.png: not attached (not a valid PNG image") for n in notes)


@pytest.mark.parametrize("typed", ["{p}", "'{p}'", '"{p}"', "{escaped}", "file://{url}", "  {p}  "])
def test_pasted_paths_as_terminals_paste_them(tmp_path: Path, typed: str) -> None:
    shot = tmp_path / "my shot.png"
    data = write_png(shot)
    line = typed.format(p=shot, escaped=str(shot).replace(" ", "\\ "), url=str(shot).replace(" ", "%20"))
    assert pasted_image(line, tmp_path / "elsewhere") == shot
    pasted = attach_pasted(line, tmp_path)
    assert pasted is not None
    turn, notes = pasted
    assert [base64.b64decode(i.data) for i in turn.images] == [data] and notes[0].startswith("attached image my shot.png")


def test_other_lines_are_not_pasted_images(tmp_path: Path) -> None:
    write_png(tmp_path / "a.png")
    (tmp_path / "notes.txt").write_text("hi")
    for line in ["look at a.png please", "notes.txt", str(tmp_path / "missing.png"), "'unclosed", "", "a.png b.png",
                 str(tmp_path)]:
        assert attach_pasted(line, tmp_path) is None, line
    assert pasted_image("a.png", tmp_path) == tmp_path / "a.png"     # relative to the project
