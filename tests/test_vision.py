"""Unit: which models take images, and a request's pictures when the endpoint says it cannot take
them (``axon_cli/agent/model/vision.py``)."""

from __future__ import annotations

import pytest

from axon_cli.agent.model.vision import (
    NOT_SENT,
    accepts_images,
    carries_images,
    refuses_images,
    without_images,
)

IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}


@pytest.mark.parametrize("model", ["gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-5", "o3", "openai/o4-mini",
                                   "claude-sonnet-4-5", "gemini-2.5-pro", "llava:13b", "qwen2.5-vl-7b-instruct",
                                   "Qwen/Qwen2.5-VL-72B-Instruct", "llama3.2-vision:11b", "gemma3:27b",
                                   "pixtral-12b", "minicpm-v", "moondream", "mistral-small-3.1"])
def test_vision_models_take_images_by_default(model: str) -> None:
    assert accepts_images("auto", model)


@pytest.mark.parametrize("model", ["test-model", "qwen2.5-coder:7b", "llama3.1:8b", "deepseek-r1", "gpt-3.5-turbo",
                                   "mistral-7b-instruct", "codellama", "phi3", "solo3-x", ""])
def test_text_models_do_not(model: str) -> None:
    assert not accepts_images("auto", model)


def test_the_setting_and_the_list_decide() -> None:
    assert accepts_images("on", "test-model") and not accepts_images("off", "gpt-4o")
    assert accepts_images("auto", "my-local-vlm", ["local-vlm$"]) and not accepts_images("auto", "gpt-4o", [])


@pytest.mark.parametrize(("status", "message"), [
    (400, "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"),
    (400, "Invalid content type. image_url is only supported by certain models."),
    (400, "This model does not support image inputs"),
    (422, "model is not multimodal"),
    (500, "vision is not enabled for this server"),
    (404, "No endpoints found that support image input"),
])
def test_refusals_are_recognised(status: int, message: str) -> None:
    assert refuses_images(status, message)


@pytest.mark.parametrize(("status", "message"), [(400, "maximum context length exceeded"), (401, "bad image key"),
                                                 (429, "rate limited on image requests"), (400, "invalid tools")])
def test_other_errors_are_not(status: int, message: str) -> None:
    assert not refuses_images(status, message)


def test_without_images_leaves_the_words_and_a_note_and_changes_nothing_in_place() -> None:
    messages = [{"role": "system", "content": "sys"},
                {"role": "user", "content": [{"type": "text", "text": "look"}, IMAGE]},
                {"role": "user", "content": [{"type": "text", "text": "only words"}]}]
    before = [dict(m) for m in messages]
    assert carries_images(messages)
    out = without_images(messages)
    assert out[1] == {"role": "user", "content": f"look\n{NOT_SENT}"}
    assert out[0] is messages[0] and out[2] is messages[2] and messages == before
    assert not carries_images(out)
