"""The package layers, read from the code: no module imports from a higher layer (lazy imports inside
functions and ``TYPE_CHECKING`` imports included), and no circle among module-level imports.

Layers, low to high: everything not named below (config, events, tools, permissions, sandbox, …) <
model (the model client) < protocols (tool-call protocols) < guidance (answer guidance for small
models) < loop (the agent loop) < session, extend, runtime < ui, acp, mcp_server, sdk, cli, startup (the frontends).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "axon_cli"
LAYERS: dict[str, int] = {"model": 1, "protocols": 2, "guidance": 3, "loop": 4, "session": 5, "extend": 5,
                          "runtime": 5, "runtime_session": 5, "assembly": 5, "ui": 6, "acp": 6, "reports": 6,
                          "cli": 6, "startup": 6, "__main__": 6, "mcp_server": 6, "sdk": 6}
FACADE = 6          # ``axon_cli`` itself: the public ``from axon_cli import tool``, imported on first use
# upward imports known and left for a later step; the list must stay true (it can only shrink)
KNOWN_UPWARD = {
    ("axon_cli.tools.audit", "axon_cli.kernel.json_lines"),   # line checks shared with the audit log
}


def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out: dict[str, Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


MODULES = modules()


def layer(module: str) -> int:
    parts = module.split(".")
    return LAYERS.get(parts[1], 0) if len(parts) > 1 else FACADE


def is_package(module: str) -> bool:
    return MODULES[module].name == "__init__.py"


def imported(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The package modules one import statement names (``from a import b``: ``a.b`` when it is a module)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "axon_cli"]
    base = node.module or ""
    if node.level:
        anchor = module.split(".") if is_package(module) else module.split(".")[:-1]
        anchor = anchor[:len(anchor) - node.level + 1]
        base = ".".join([*anchor, *([base] if base else [])])
    if base.split(".")[0] != "axon_cli":
        return []
    names = [f"{base}.{a.name}" for a in node.names]
    return [n if n in MODULES else base for n in names]


def imports(module: str, top_level_only: bool = False) -> set[str]:
    tree = ast.parse(MODULES[module].read_text(encoding="utf-8"))
    nodes: list[ast.AST] = list(tree.body) if top_level_only else list(ast.walk(tree))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.update(t for t in imported(module, node) if t in MODULES)
    return found - {module}


def test_the_declared_layers_exist() -> None:
    top = {m.split(".")[1] for m in MODULES if "." in m}
    assert set(LAYERS) <= top, set(LAYERS) - top
    assert "axon_cli.core" not in MODULES     # split by concern: no grab-bag left


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_from_a_higher_layer(module: str) -> None:
    upward = sorted(t for t in imports(module) if layer(t) > layer(module) and (module, t) not in KNOWN_UPWARD)
    assert not upward, f"{module} (layer {layer(module)}) imports {upward}"


def test_the_known_upward_imports_are_still_there() -> None:
    for module, target in KNOWN_UPWARD:
        assert target in imports(module) and layer(target) > layer(module), (module, target)


def test_no_circle_among_module_level_imports() -> None:
    graph = {m: imports(m, top_level_only=True) for m in MODULES}
    state: dict[str, int] = {}      # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                raise AssertionError("import circle: " + " -> ".join([*path[path.index(nxt):], nxt]))
            if nxt not in state:
                visit(nxt, [*path, nxt])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])


def test_the_check_sees_an_upward_import(tmp_path: Path) -> None:
    """The walk finds lazy imports inside functions (so a violation cannot hide there)."""
    source = "def f():\n    from axon_cli.agent.loop.agent import Agent\n    return Agent\n"
    tree = ast.parse(source)
    found = {t for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)
             for t in imported("axon_cli.agent.guidance.guide", node)}
    assert found == {"axon_cli.agent.loop.agent"} and layer("axon_cli.agent.loop.agent") > layer("axon_cli.agent.guidance.guide")
