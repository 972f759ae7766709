"""The registry (discovery, active/deferred, activation) and the JSON schemas the model sees."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from axon_cli.tools.registry import ToolRegistry, builtin_specs
from axon_cli.tools.spec import ToolSpec

DEFERRED_BUILTINS = {"memory_save", "memory_read", "todo_write"}


class NoInput(BaseModel):
    pass


def make(name: str, deferred: bool = False) -> ToolSpec[Any]:
    return ToolSpec(name=name, description=f"{name} does things", input_model=NoInput,
                    handler=lambda _i, _c: name, deferred=deferred)


def test_builtins_are_discovered_with_deferred_flags():
    specs = {s.name: s for s in builtin_specs()}
    assert {"tool_search", *DEFERRED_BUILTINS} <= set(specs)
    assert {n for n, s in specs.items() if s.deferred} >= DEFERRED_BUILTINS
    assert specs["tool_search"].deferred is False


def test_first_request_tools_exclude_deferred():
    registry = ToolRegistry.with_builtins()
    names = [t["function"]["name"] for t in registry.openai_tools()]
    assert "tool_search" in names
    assert not DEFERRED_BUILTINS & set(names)
    assert {s.name for s in registry.deferred()} >= DEFERRED_BUILTINS


def test_activation_only_of_deferred_known_tools():
    registry = ToolRegistry([make("core"), make("extra", deferred=True), make("other", deferred=True)])
    assert registry.activate(["extra", "core", "missing"]) == ["extra"]
    assert registry.activated() == ["extra"]
    assert [s.name for s in registry.active()] == ["core", "extra"]
    assert [s.name for s in registry.deferred()] == ["other"]
    assert registry.is_active("extra") and not registry.is_active("other") and not registry.is_active("missing")


def test_unregister_drops_activation_and_register_twice_fails():
    registry = ToolRegistry([make("extra", deferred=True)])
    registry.activate(["extra"])
    registry.unregister("extra")
    assert registry.activated() == [] and registry.get("extra") is None
    registry.register(make("extra", deferred=True))
    assert not registry.is_active("extra")
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(make("extra"))


def test_demote_makes_a_core_tool_deferred():
    registry = ToolRegistry([make("core"), make("side")])
    registry.demote(["side", "missing"])
    assert [s.name for s in registry.active()] == ["core"]
    assert [s.name for s in registry.deferred()] == ["side"]


def _walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found += _walk(value)
    elif isinstance(node, list):
        for value in node:
            found += _walk(value)
    return found


@pytest.mark.parametrize("spec", builtin_specs(), ids=lambda s: s.name)
def test_builtin_schemas_are_clean(spec):
    tool = spec.openai_tool()
    json.dumps(tool)
    params = tool["function"]["parameters"]
    assert params["type"] == "object"
    assert tool["function"]["description"].strip()
    for node in _walk(params):
        assert not {"title", "$ref", "$defs"} & set(node), node
    for name, prop in params.get("properties", {}).items():
        assert "type" in prop or "enum" in prop, (spec.name, name)
    assert spec.one_line() and "\n" not in spec.one_line()


def test_optional_field_is_simplified():
    from axon_cli.tools.builtin.memory import MemoryReadInput
    from axon_cli.tools.schema import model_schema

    schema = model_schema(MemoryReadInput)
    assert schema["properties"]["name"] == {"type": "string", "description": "Omit to list saved memories"}
    assert "required" not in schema


def test_nested_model_is_inlined():
    from axon_cli.tools.builtin.todo import TodoWriteInput
    from axon_cli.tools.schema import model_schema

    items = model_schema(TodoWriteInput)["properties"]["todos"]["items"]
    assert items["properties"]["status"]["enum"] == ["pending", "in_progress", "done"]
    assert items["required"] == ["content"]
