"""``docs/architecture.md`` is one page and names exactly the packages there are: every package of
every floor (``tests/test_layers.py``'s floors), and none that does not exist."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_layers import FACADE, FLOORS, MODULES, ONE_PACKAGE_FLOORS, package_of

DOC = Path(__file__).resolve().parent.parent / "docs" / "architecture.md"


def floors_table() -> dict[str, set[str]]:
    """The floors table: each floor's row and the packages it names (in backticks)."""
    rows: dict[str, set[str]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and cells[0] in FLOORS:
            rows[cells[0]] = set(re.findall(r"`([\w/.]+)`", cells[1]))
    return rows


def packages() -> set[str]:
    """Every package as the doc names it: ``floor`` for a one-package floor, else ``floor/name``
    (``floor/name.py`` for a module lying loose on the floor)."""
    out = set()
    for module in MODULES:
        floor_itself = module.count(".") == 1 and module.split(".")[1] not in ONE_PACKAGE_FLOORS
        if module in FACADE or floor_itself:
            continue
        package = package_of(module).split(".")[1:]
        if len(package) == 2 and MODULES[package_of(module)].name != "__init__.py":
            package[-1] += ".py"
        out.add("/".join(package))
    return {p for p in out if p}


def test_the_doc_is_one_page() -> None:
    assert len(DOC.read_text(encoding="utf-8").splitlines()) <= 80


def test_the_floors_table_has_every_floor_in_order() -> None:
    assert list(floors_table()) == list(FLOORS)


def test_the_doc_names_every_package_and_no_package_that_does_not_exist() -> None:
    named = set().union(*floors_table().values())
    assert named == packages(), (f"missing: {sorted(packages() - named)}; "
                                 f"not a package: {sorted(named - packages())}")


def test_each_package_is_named_on_its_own_floors_row() -> None:
    for floor, named in floors_table().items():
        assert all(p.split("/")[0] == floor for p in named), (floor, named)
        if floor in ONE_PACKAGE_FLOORS:
            assert named == {floor}


def test_every_module_path_the_doc_mentions_exists() -> None:
    repo, package = DOC.parent.parent, DOC.parent.parent / "axon_cli"
    mentioned = set(re.findall(r"`((?:[a-z_]+/)+[a-z_]+\.py)`", DOC.read_text(encoding="utf-8")))
    missing = sorted(m for m in mentioned if not (package / m).is_file() and not (repo / m).is_file())
    assert mentioned and not missing, missing
