"""End-to-end: pictures in, through the real ``axon run`` and the scripted server. ``@shot.png`` in the
task and ``read_file`` on an image reach a model that takes images as image parts (a large picture
scaled down under the caps); a text-only model gets the text alone and the user one line; an endpoint
that answers a request with pictures "image input is not supported" gets the request again without
them, and every later request too; a broken picture is one line, never a traceback; a resumed session
keeps its (capped) pictures and sends them only to a model that takes images."""

from __future__ import annotations

import base64
import io
import json
import os
from typing import Any

from PIL import Image

from axon_cli.machinery.media.imaging import MAX_BYTES, MAX_EDGE
from tests.fakeserver import error_reply, text_reply, tool_reply

VISION = {"AXON_MODEL": "gpt-4o"}
TEXT_ONLY = {"AXON_MODEL": "test-model"}
REFUSAL = "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"


def png(width: int, height: int) -> bytes:
    """A PNG of random pixels (small pictures: each one different)."""
    return _encoded(Image.frombytes("RGB", (width, height), os.urandom(width * height * 3)))


def photo(width: int, height: int) -> bytes:
    """A large smooth PNG (gradients in three channels), quick to make."""
    channels = [Image.linear_gradient("L").resize((width, height)), Image.radial_gradient("L").resize((width, height)),
                Image.linear_gradient("L").rotate(90).resize((width, height))]
    return _encoded(Image.merge("RGB", channels))


def _encoded(img: Image.Image) -> bytes:
    buffer = io.BytesIO()
    img.save(buffer, "PNG")
    return buffer.getvalue()


def image_parts(message: dict[str, Any]) -> list[tuple[str, bytes]]:
    """The (MIME type, decoded bytes) of each image part of ``message``."""
    content = message.get("content")
    out = []
    for part in content if isinstance(content, list) else []:
        if part.get("type") == "image_url":
            head, _, data = part["image_url"]["url"].partition(",")
            assert head.startswith("data:") and head.endswith(";base64"), head
            out.append((head[len("data:"):-len(";base64")], base64.b64decode(data)))
    return out


def all_image_parts(messages: list[dict[str, Any]]) -> list[tuple[str, bytes]]:
    return [p for m in messages for p in image_parts(m)]


def texts(message: dict[str, Any]) -> str:
    content = message["content"]
    return content if isinstance(content, str) else "\n".join(p.get("text", "") for p in content)


def test_at_images_in_a_run_reach_a_vision_model_and_a_large_one_is_scaled_down(server, run_axon, project):
    small = png(40, 30)
    (project / "shot.png").write_bytes(small)
    (project / "big.png").write_bytes(photo(4000, 3000))
    server.add(text_reply("Two pictures."))
    ran = run_axon("run", "describe @shot.png and @big.png", env=VISION)
    assert ran.code == 0, ran.stderr
    assert ran.stdout.strip() == "Two pictures."
    user = server.requests[0].messages[-1]
    assert user["role"] == "user" and "describe @shot.png and @big.png" in texts(user)
    (mime1, first), (mime2, second) = image_parts(user)
    assert (mime1, first) == ("image/png", small)                 # within the caps: sent as it is
    with Image.open(io.BytesIO(second)) as img:
        img.load()
        assert max(img.size) == MAX_EDGE and img.size == (MAX_EDGE, MAX_EDGE * 3 // 4)
        assert img.format == mime2.split("/")[1].upper()
    assert len(second) <= MAX_BYTES
    assert "attached image big.png (PNG image, 4000x3000" in ran.stderr
    # the transcript keeps the scaled-down picture, not the original; resuming sends it again
    server.add(text_reply("Still two."))
    again = run_axon("run", "-c", "and now?", env=VISION)
    assert again.code == 0, again.stderr
    assert all_image_parts(server.requests[1].messages) == all_image_parts(server.requests[0].messages)
    transcript = next((project / ".axon" / "sessions").glob("*.jsonl"))
    assert transcript.stat().st_size < 2 * MAX_BYTES


def test_read_file_on_an_image_sends_the_picture_after_the_result(server, run_axon, project):
    shot = png(64, 48)
    (project / "shot.png").write_bytes(shot)
    server.add(tool_reply(("read_file", {"path": "shot.png"})), text_reply("A noisy square."))
    ran = run_axon("run", "what is in shot.png?", env=VISION)
    assert ran.code == 0, ran.stderr
    sent = server.requests[1].messages
    tool = next(m for m in sent if m["role"] == "tool")
    assert tool["content"].startswith("shot.png: PNG image, 64x48")
    assert "follows in the next message" in tool["content"]
    assert sent[-1]["role"] == "user" and image_parts(sent[-1]) == [("image/png", shot)]


def test_a_text_only_model_gets_the_words_and_the_user_one_line(server, run_axon, project):
    shot = png(20, 20)
    (project / "shot.png").write_bytes(shot)
    server.add(text_reply("No picture here."), tool_reply(("read_file", {"path": "shot.png"})),
               text_reply("Still none."))
    ran = run_axon("run", "describe @shot.png", env=TEXT_ONLY)
    assert ran.code == 0, ran.stderr
    assert ran.stdout.strip() == "No picture here."
    assert server.requests[0].conversation[-1] == {"role": "user", "content": "describe @shot.png"}
    assert [line for line in ran.stderr.splitlines() if "does not take images" in line] == [
        "note: shot.png: not sent, this model does not take images (set images = \"on\" in config.toml if it does)"]
    ran = run_axon("run", "read it", env=TEXT_ONLY)          # read_file: the result says the picture stayed out
    assert ran.code == 0, ran.stderr
    sent = server.requests[2].messages
    assert all_image_parts(sent) == [] and base64.b64encode(shot).decode() not in json.dumps(sent)
    assert "not shown: this model does not take images" in next(m for m in sent if m["role"] == "tool")["content"]


def test_images_off_keeps_pictures_from_a_vision_model(server, run_axon, project):
    (project / "shot.png").write_bytes(png(20, 20))
    (project / ".axon").mkdir(exist_ok=True)
    (project / ".axon" / "config.toml").write_text('images = "off"\n')
    server.add(text_reply("ok"))
    ran = run_axon("run", "describe @shot.png", env={**VISION, "AXON_TRUST": "1"})
    assert ran.code == 0, ran.stderr
    assert all_image_parts(server.requests[0].messages) == []
    assert "not sent, this model does not take images" in ran.stderr


def test_an_endpoint_that_refuses_images_gets_the_request_again_without_them(server, run_axon, project):
    shot = png(32, 32)
    (project / "shot.png").write_bytes(shot)
    server.add(error_reply(400, REFUSAL), tool_reply(("read_file", {"path": "shot.png"})), text_reply("Seen as text."))
    ran = run_axon("run", "describe @shot.png", env=VISION)
    assert ran.code == 0, ran.stderr
    assert ran.stdout.strip() == "Seen as text."
    first, retried, after_read = (r.messages for r in server.requests)
    assert all_image_parts(first) and not all_image_parts(retried) and not all_image_parts(after_read)
    assert "describe @shot.png" in texts(retried[-1])             # the words went on without the picture
    assert "not shown: this model does not take images" in next(
        m for m in after_read if m["role"] == "tool")["content"]
    refusals = [line for line in ran.stderr.splitlines() if "does not take images (HTTP 400" in line]
    assert len(refusals) == 1 and "Traceback" not in ran.stderr


def test_a_broken_picture_is_one_line_and_the_run_goes_on(server, run_axon, project):
    (project / "bad.png").write_bytes(b"\x89PNG\r\n\x1a\n" + os.urandom(3000))   # a PNG header, then noise
    (project / "junk.png").write_bytes(os.urandom(3000))
    server.add(tool_reply(("read_file", {"path": "bad.png"})), text_reply("Could not see it."))
    ran = run_axon("run", "describe @bad.png and @junk.png", env=VISION)
    assert ran.code == 0, ran.stderr
    assert ran.stdout.strip() == "Could not see it."
    assert "note: bad.png: not attached (not a valid PNG image" in ran.stderr
    assert "note: junk.png: not attached (not a PNG, JPEG, GIF or WebP image" in ran.stderr
    assert "Traceback" not in ran.stderr + ran.stdout
    assert all_image_parts(server.requests[0].messages) == []
    tool = next(m for m in server.requests[1].messages if m["role"] == "tool")
    assert tool["content"].startswith("Error: bad.png: not a valid PNG image (")
    assert "\n" not in tool["content"].strip()


def test_a_resumed_session_sends_its_pictures_only_to_a_model_that_takes_them(server, run_axon, project):
    (project / "shot.png").write_bytes(png(24, 24))
    server.add(text_reply("A picture."), text_reply("Text only."))
    assert run_axon("run", "describe @shot.png", env=VISION).code == 0
    ran = run_axon("run", "-c", "and in words?", env=TEXT_ONLY)
    assert ran.code == 0, ran.stderr
    resumed = server.requests[1].messages
    assert all_image_parts(resumed) == []
    earlier = next(m for m in resumed if m["role"] == "user" and "describe @shot.png" in texts(m))
    assert "not sent: this model does not take images" in texts(earlier)
    listed = run_axon("sessions")                      # the listing shows the words, not the picture
    assert listed.code == 0 and listed.stdout.splitlines()[1].endswith("  describe @shot.png"), listed.stdout
