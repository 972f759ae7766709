"""End-to-end: in ``axon chat``, a line that is a pasted image path (quoted as terminals paste a
name with a space, outside the project) sends that picture to a model that takes images; the chat
says what it attached and goes on; so does ``@inside.png``; ``chat --continue`` sends the pictures again."""

from __future__ import annotations

import base64

from tests.e2e.session.test_images_e2e import image_parts, png
from tests.e2e.ui.test_repl import Chat
from tests.fakeserver import text_reply


def test_a_pasted_image_path_reaches_the_model_as_an_image_part(server, project, axon_env):
    shot = project.parent / "Screenshot 2026-12-02 at 10.00.png"
    data = png(50, 40)
    shot.write_bytes(data)
    inside = png(10, 10)
    (project / "inside.png").write_bytes(inside)
    server.add(text_reply("A screenshot of noise."), text_reply("Plain words."), text_reply("Another one."))
    c = Chat(project, {**axon_env, "AXON_MODEL": "gpt-4o"})
    try:
        c.prompt()
        c.say(f"'{shot}'")
        c.expect("attached image Screenshot 2026-12-02 at 10.00.png (PNG image, 50x40")
        c.expect("A screenshot of noise.")
        c.prompt()
        c.say("and this is just text")
        c.expect("Plain words.")
        c.prompt()
        c.say("and @inside.png?")
        c.expect("attached image inside.png (PNG image, 10x10")
        c.expect("Another one.")
        c.prompt()
        c.exit()
    finally:
        if c.child.isalive():
            c.child.terminate(force=True)
    first = server.requests[0].messages[-1]
    assert image_parts(first) == [("image/png", data)]
    assert base64.b64encode(data).decode() not in str(server.requests[1].messages[-1])
    assert server.requests[1].conversation[-1] == {"role": "user", "content": "and this is just text"}
    assert image_parts(server.requests[2].messages[-1]) == [("image/png", inside)]
    assert "Traceback" not in c.raw
    # chat --continue loads the session with its picture and sends it again
    server.add(text_reply("Resumed."))
    c = Chat(project, {**axon_env, "AXON_MODEL": "gpt-4o"}, "--continue")
    try:
        c.expect("resumed session")
        c.prompt()
        c.say("once more")
        c.expect("Resumed.")
        c.prompt()
        c.exit()
    finally:
        if c.child.isalive():
            c.child.terminate(force=True)
    resumed = server.requests[3].messages
    assert [p for m in resumed for p in image_parts(m)] == [("image/png", data), ("image/png", inside)]
