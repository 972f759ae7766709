"""Class C of issue 32 (pictures): untrusted bytes with no budget. A small file can name a canvas that
takes gigabytes to decode; every way a picture reaches axon (``read_file``, ``@file``, an MCP result)
goes through the one loader, which tells the cost from the header and refuses what is over the
budget, decodes a JPEG at a reduced scale, and shares the budget between pictures decoded side by
side. Judged by what reached the scripted model (peak RSS is measured in bench/bench_images.py) and
by axon finishing its turn. Issue 34 item 8 too: a picture whose pixels decode is sent even when an
optional chunk is broken (the MCP "everything" server's picture), cut pixel data is still refused.
"""

from __future__ import annotations

import asyncio
import base64
import io
import sys
from pathlib import Path
from typing import Any

from PIL import Image

from axon_cli.machinery.media.imaging import MAX_EDGE
from tests.e2e.acp.client import DEADLINE_S, RecordingClient, open_axon
from tests.e2e.attacks.lab import crashed
from tests.e2e.attacks.pictures import big_jpeg, blank_png, png_chunk
from tests.e2e.mcp.test_mcp_e2e import TRUSTED, tool_messages, write_mcp_json
from tests.fakeserver import text_reply, tool_reply

VISION = {"AXON_MODEL": "gpt-4o"}
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "images"
DEMO = str(Path(__file__).resolve().parents[2] / "mcp_servers" / "demo_server.py")


def pictures_sent(messages: list[dict[str, Any]]) -> list[Image.Image]:
    """Every picture in ``messages``, decoded."""
    out = []
    for m in messages:
        for part in m["content"] if isinstance(m.get("content"), list) else []:
            if part.get("type") == "image_url":
                img = Image.open(io.BytesIO(base64.b64decode(part["image_url"]["url"].partition(",")[2])))
                img.load()
                out.append(img)
    return out


def test_pictures_whose_canvas_is_over_the_budget_reach_the_model_as_refusals(server, run_axon, project):
    hostile = {"square.png": blank_png(7999, 7999), "wide.png": blank_png(16_000_000, 4),
               "tall.png": blank_png(4, 16_000_000, grey=True), "layers.jpg": big_jpeg(7000, progressive=True)}
    for name, data in hostile.items():
        (project / name).write_bytes(data)
    (project / "fine.png").write_bytes(blank_png(300, 200))
    calls = [("read_file", {"path": name}) for name in [*hostile, "fine.png"]]
    server.add(tool_reply(*calls, call_ids=[*hostile, "fine"]), text_reply("looked"))
    ran = run_axon("run", "look at them", env=VISION, timeout=180)
    assert not crashed(ran) and ran.code == 0, ran.stderr[-2500:]
    assert ran.stdout.strip() == "looked"
    sent = server.requests[1].messages
    assert [img.size for img in pictures_sent(sent)] == [(300, 200)]          # only the harmless one
    results = tool_messages(sent)
    for name in hostile:
        assert results[name].startswith(f"Error: {name}: too large"), results[name]


def test_a_huge_jpeg_is_decoded_at_a_reduced_scale_and_sent(server, run_axon, project):
    (project / "scan.jpg").write_bytes(big_jpeg(9000, mode="L"))      # 81 megapixels: over the canvas cap in full
    server.add(tool_reply(("read_file", {"path": "scan.jpg"})), text_reply("seen"))
    ran = run_axon("run", "look", env=VISION, timeout=120)
    assert not crashed(ran) and ran.code == 0, ran.stderr[-2500:]
    (img,) = pictures_sent(server.requests[1].messages)
    assert max(img.size) == MAX_EDGE


def test_four_large_pictures_in_one_reply_share_the_budget_and_all_arrive(server, run_axon, project):
    names = [f"shot{i}.png" for i in range(4)]
    for i, name in enumerate(names):                  # 100 MB decoded each: one fits, four at once do not
        (project / name).write_bytes(blank_png(5000, 5000) + bytes([i]))
    server.add(tool_reply(*[("read_file", {"path": n}) for n in names]), text_reply("four"))
    ran = run_axon("run", "look", env=VISION, timeout=180)
    assert not crashed(ran) and ran.code == 0, ran.stderr[-2500:]
    assert [img.size for img in pictures_sent(server.requests[1].messages)] == [(MAX_EDGE, MAX_EDGE)] * 4


def test_an_at_file_over_the_budget_is_one_line_and_the_turn_goes_on(server, run_axon, project):
    (project / "square.png").write_bytes(blank_png(7999, 7999))
    server.add(text_reply("no picture"), text_reply("no picture"))
    ran = run_axon("run", "describe @square.png", env=VISION, timeout=120)
    assert not crashed(ran), ran.stderr[-2500:]
    assert pictures_sent(server.requests[0].messages) == []
    assert len([ln for ln in ran.stderr.splitlines() if "square.png: not attached" in ln]) == 1, ran.stderr


def test_the_mcp_everything_servers_picture_with_a_broken_colour_profile_is_sent(server, run_axon, project):
    fixture = FIXTURES / "mcp_everything_tiny_image.png"
    write_mcp_json(project, test={"command": sys.executable, "args": [DEMO], "env": {"DEMO_IMAGE": str(fixture)}})
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text('images = "on"\n')
    server.add(tool_reply(("tool_search", {"query": "select:mcp__test__image"})),
               tool_reply(("mcp__test__image", {})), text_reply("seen"))
    ran = run_axon("run", "look", "--yes", env=TRUSTED, timeout=90)
    assert ran.code == 0, ran.stderr
    (img,) = pictures_sent(server.requests[2].messages)
    assert img.size == (20, 20) and img.mode == "RGBA" and img.getextrema()[3][1] > 0   # the logo's pixels


def test_cut_pixel_data_is_still_refused(server, run_axon, project):
    whole = blank_png(600, 400)
    idat_at = whole.index(b"IDAT") - 4
    length = int.from_bytes(whole[idat_at:idat_at + 4], "big")
    data = whole[idat_at + 8:idat_at + 8 + length]
    header = whole[:idat_at]
    cut = header + png_chunk(b"IDAT", data[:len(data) // 2]) + png_chunk(b"IEND", b"")   # valid CRCs, half the rows
    (project / "cut.png").write_bytes(cut)
    server.add(tool_reply(("read_file", {"path": "cut.png"})), text_reply("seen"))
    ran = run_axon("run", "look", env=VISION, timeout=120)
    assert not crashed(ran) and ran.code == 0, ran.stderr[-2500:]
    assert pictures_sent(server.requests[1].messages) == []
    assert tool_messages(server.requests[1].messages)["call_1_0"].startswith("Error: cut.png: not a valid PNG")


def test_an_acp_image_block_over_the_budget_is_left_out_and_the_turn_ends(project, server, axon_env, tmp_path):
    from acp import image_block, text_block
    from acp.schema import ClientCapabilities

    server.add(text_reply("seen"))
    blocks = [text_block("look"), image_block(base64.b64encode(blank_png(7999, 7999)).decode(), "image/png"),
              image_block(base64.b64encode(blank_png(30, 20)).decode(), "image/png")]

    async def drive() -> str:
        async with open_axon(RecordingClient(), project, dict(axon_env, AXON_MODEL="gpt-4o"),
                             tmp_path / "stderr.txt") as conn:
            await conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities())
            session = await conn.new_session(cwd=str(project), mcp_servers=[])
            done = await conn.prompt(session_id=session.session_id, prompt=blocks)
            return str(done.stop_reason)

    assert asyncio.run(asyncio.wait_for(drive(), DEADLINE_S)) == "end_turn"
    assert [img.size for img in pictures_sent(server.requests[0].conversation)] == [(30, 20)]
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
