"""The floors, read from the code: every module of ``axon_cli`` sits on one floor, and no import — at
module level, inside a function, under ``TYPE_CHECKING`` — goes up a floor or closes a circle between
two packages of one floor.

Floors, low to high (``docs/architecture.md`` says what each holds): kernel < shell < settings <
policy < machinery < tools < agent < session < app, and the facade (``axon_cli/__init__.py``,
``__main__.py``, ``sdk.py``: the public import paths) on top. A package is a floor's sub-folder
(``machinery/sandbox``, ``agent/loop``, ``app/ui``) or one module lying loose on the floor
(``agent/assembly.py``); a floor without sub-folders (``kernel``, ``shell``, ``tools``) is one package.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "axon_cli"
FLOORS = ("kernel", "shell", "settings", "policy", "machinery", "tools", "agent", "session", "app")
FACADE = ("axon_cli", "axon_cli.__main__", "axon_cli.sdk")
ONE_PACKAGE_FLOORS = ("kernel", "shell", "settings", "policy", "tools")   # their sub-folders are parts of one idea


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its own name)."""
    out: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


MODULES = modules()


def floor(module: str) -> int:
    """The floor's rank (the facade is above every floor); a module on no floor is an error."""
    if module in FACADE:
        return len(FLOORS)
    parts = module.split(".")
    assert len(parts) > 1 and parts[1] in FLOORS, f"{module} is on no floor (one of {', '.join(FLOORS)})"
    return FLOORS.index(parts[1])


def package_of(module: str) -> str:
    """The package a module belongs to: its floor's sub-folder, or itself when it lies loose on a floor
    with sub-folders, or the floor when the floor is one package."""
    parts = module.split(".")
    if module in FACADE or parts[1] in ONE_PACKAGE_FLOORS or len(parts) == 2:
        return ".".join(parts[:2])
    return ".".join(parts[:3])


def imported(module: str, node: ast.Import | ast.ImportFrom, known: Iterable[str]) -> list[str]:
    """The package modules one import statement names (``from a import b``: ``a.b`` when it is a module)."""
    known = set(known)
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            anchor = module.split(".") if MODULES.get(module, Path()).name == "__init__.py" else module.split(".")[:-1]
            base = ".".join([*anchor[:len(anchor) - node.level + 1], *([base] if base else [])])
        names = [n if (n := f"{base}.{a.name}") in known else base for a in node.names]
    out = []
    for name in names:
        while name not in known and "." in name:
            name = name.rsplit(".", 1)[0]
        if name in known and name != module:
            out.append(name)
    return out


def imports(module: str, source: str | None = None, top_level_only: bool = False) -> set[str]:
    """What ``module`` imports from the package: every import statement anywhere in it, or only those
    at module level."""
    tree = ast.parse(source if source is not None else MODULES[module].read_text(encoding="utf-8"))
    nodes: list[ast.AST] = list(tree.body) if top_level_only else list(ast.walk(tree))
    return {t for node in nodes if isinstance(node, ast.Import | ast.ImportFrom) for t in imported(module, node, MODULES)}


def upward(module: str, targets: Iterable[str]) -> list[str]:
    return sorted(t for t in targets if floor(t) > floor(module))


def circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of ``graph``, or None."""
    state: dict[str, int] = {}      # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt):], nxt]
            if nxt not in state and (found := visit(nxt, [*path, nxt])):
                return found
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node, [node])):
            return found
    return None


def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module in MODULES:
        graph.setdefault(package_of(module), set()).update(
            package_of(t) for t in imports(module) if package_of(t) != package_of(module))
    return graph


def test_every_module_is_on_a_floor_and_every_floor_exists() -> None:
    assert all(floor(m) >= 0 for m in MODULES)
    on_disk = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert on_disk == set(FLOORS)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_import_goes_up_a_floor(module: str) -> None:
    up = upward(module, imports(module))
    assert not up, f"{module} (floor {FLOORS[floor(module)] if floor(module) < len(FLOORS) else 'facade'}) imports {up}"


def test_no_two_packages_depend_on_each_other_directly_or_through_others() -> None:
    found = circle(package_graph())
    assert found is None, "packages in a circle: " + " -> ".join(found or [])


def test_no_circle_among_module_level_imports() -> None:
    found = circle({m: imports(m, top_level_only=True) for m in MODULES})
    assert found is None, "import circle: " + " -> ".join(found or [])


def test_a_planted_upward_import_inside_a_function_is_seen() -> None:
    """The walk finds imports inside functions and under TYPE_CHECKING, so a violation cannot hide there."""
    lazy = "def f():\n    from axon_cli.agent.loop.agent import Agent\n    return Agent\n"
    typing = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from axon_cli.app.ui import repl\n"
    assert upward("axon_cli.tools.dispatch", imports("axon_cli.tools.dispatch", lazy)) == ["axon_cli.agent.loop.agent"]
    assert upward("axon_cli.kernel.events", imports("axon_cli.kernel.events", typing)) == ["axon_cli.app.ui.repl"]


def test_a_planted_circle_between_two_packages_of_one_floor_is_seen() -> None:
    graph = package_graph()
    graph.setdefault("axon_cli.machinery.masking", set()).add("axon_cli.machinery.sandbox")
    graph.setdefault("axon_cli.machinery.sandbox", set()).add("axon_cli.machinery.masking")
    assert circle(graph) is not None


def test_no_module_imports_a_private_name_from_another() -> None:
    private = []
    for module, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("axon_cli"):
                private += [f"{module}: {node.module}.{a.name}" for a in node.names
                            if a.name.startswith("_") and not a.name.startswith("__")]
    assert private == []


def test_no_two_modules_share_a_file_name() -> None:
    seen: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__init__.py":
            seen.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {n: p for n, p in seen.items() if len(p) > 1} == {}
