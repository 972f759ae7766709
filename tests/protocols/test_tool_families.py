"""The text tool prompt in the model family's own format: which family a model name gets (the
user's ``tool_formats`` first), what each family's block holds, and that it stays generic."""

from __future__ import annotations

import json
import re

import pytest

from axon_cli.agent.protocols.builtin import AutoProtocol, TextProtocol, family, make_protocol
from axon_cli.agent.protocols.textcalls import parse_text_calls
from axon_cli.agent.protocols.toolprompt import BEGIN, FAMILIES, family_for, tools_block
from axon_cli.settings.config import Settings
from axon_cli.tools.registry import ToolRegistry


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry.with_builtins()


@pytest.mark.parametrize("model, expected", [
    ("qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", "qwen"), ("Qwen/Qwen2.5-7B-Instruct", "qwen"),
    ("llama-3.2-3b-instruct", "llama"), ("Meta-Llama-3.1-8B", "llama"),
    ("mistral-7b-instruct-v0.3", "mistral"), ("codestral-22b", "mistral"),
    ("deepseek-coder-6.7b", "deepseek"), ("deepseek-r1-distill-qwen-7b", "deepseek"),
    ("gpt-4o-mini", "default"), ("phi-3-mini", "default"),
])
def test_family_by_model_name(model, expected):
    assert family_for(model) == expected


def test_the_users_table_wins_over_the_built_in_one():
    assert family_for("phi-3-mini", {"phi": "qwen"}) == "qwen"
    assert family_for("qwen2.5-coder", {"QWEN2.5": "llama"}) == "llama"
    assert family_for("qwen2.5-coder", {"phi": "llama"}) == "qwen"
    assert family(Settings(model="my-finetune", tool_formats={"finetune": "mistral"})) == "mistral"
    with pytest.raises(ValueError):
        Settings(tool_formats={"x": "gpt"})


@pytest.mark.parametrize("fam", FAMILIES)
def test_every_family_lists_json_schemas_in_tools_tags_with_one_generic_example(registry, fam):
    block = tools_block(registry.active(), fam)
    inner = block.split("<tools>\n")[1].split("\n</tools>")[0]
    tools = json.loads(inner) if fam == "mistral" else [json.loads(line) for line in inner.splitlines()]
    names = [t.get("function", t)["name"] for t in tools]
    assert names == [s.name for s in registry.active()]
    assert all("parameters" in t.get("function", t) for t in tools)
    assert BEGIN in block and "<tool_response" not in block
    examples = re.findall(r"<tool_call>\n(.*?)\n</tool_call>", block, re.S)
    assert parse_text_calls(examples[-1], registry).calls == [("read_file", {"path": "<path>"})]
    assert parse_text_calls(block, registry).calls == [("read_file", {"path": "<path>"})]   # only the example


def test_family_wording_differs(registry):
    blocks = {f: tools_block(registry.active(), f) for f in FAMILIES}
    assert "within <tool_call></tool_call> XML tags" in blocks["qwen"]
    assert '"parameters": dictionary of argument name' in blocks["llama"]
    assert '"parameters"' in blocks["llama"].split("For example:")[1]
    assert "[AVAILABLE_TOOLS]" in blocks["mistral"] and "[TOOL_CALLS]" in blocks["mistral"]
    assert blocks["qwen"].count('"type":"function"') == len(registry.active())
    assert '"type":"function"' not in blocks["deepseek"] and '"type":"function"' not in blocks["default"]
    assert len(set(blocks.values())) == len(FAMILIES)


def test_protocols_use_the_models_family(registry):
    text = make_protocol(Settings(tool_protocol="text", model="llama-3.2-3b"), registry)
    assert isinstance(text, TextProtocol) and text.family == "llama"
    assert "dictionary of argument name" in text.system_block(registry)
    auto = make_protocol(Settings(tool_protocol="auto", model="qwen2.5"), registry)
    assert isinstance(auto, AutoProtocol) and auto.family == "qwen"
    note = auto.system_block(registry)
    assert "<tool_call>" in note and BEGIN in note and "<tools>" not in note   # tools go natively


def test_no_task_specific_wording_in_the_templates():
    from importlib import resources

    for fam in (*FAMILIES, "auto"):
        text = (resources.files("axon_cli.kernel.prompts") / f"text_tools_{fam}.md").read_text()
        for word in ("version", "typo", "hello", "pytest", "README", "test"):
            assert word not in text, (fam, word)


def test_a_description_is_cut_to_its_first_sentence_at_a_word_boundary() -> None:
    from axon_cli.agent.protocols.toolprompt import first_sentence

    assert first_sentence("Read a file, e.g. a config. Lines are numbered.", 80) == "Read a file, e.g. a config."
    assert first_sentence("Run a command; stdin is closed", 80) == "Run a command"
    assert first_sentence("one two three four", 9) == "one two…"
