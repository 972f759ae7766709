"""``axon run``'s own argument reader (``app/ui/run_entry.py``) against typer's definition of the command:
the same spellings, and for every argument list it reads, the same values typer would pass."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import typer

from axon_cli.app.entry.cli import app
from axon_cli.app.ui.run_entry import FLAG_OPTIONS, VALUE_OPTIONS, RunArgs, parse_run_argv


def run_command() -> Any:
    """The click command typer builds for ``axon run`` (typer ships its own copy of click)."""
    return typer.main.get_command(app).commands["run"]   # type: ignore[attr-defined]


def typer_reads(argv: list[str]) -> dict[str, object]:
    ctx = run_command().make_context("run", list(argv))
    return dict(ctx.params)


def test_the_tables_name_every_option_of_the_typer_command_and_no_other() -> None:
    """The fast path's tables and typer's command are both made from RUN_OPTIONS: this holds the two readings."""
    flags: dict[str, str] = {}
    values: dict[str, str] = {}
    for param in run_command().params:
        if param.param_type_name == "option":
            names = [*param.opts, *param.secondary_opts]
            (flags if param.is_flag else values).update({name: str(param.name) for name in names})
    assert flags == FLAG_OPTIONS
    assert values == VALUE_OPTIONS
    assert {f.name for f in dataclasses.fields(RunArgs)} == {p.name for p in run_command().params}


READ = [
    ["hi"],
    ["-"],
    ["fix the bug", "--model", "m1", "--base-url", "http://h/v1", "--mode", "auto", "--sandbox", "off"],
    ["--tool-protocol=text", "-y", "task", "--max-turns", "3", "--output-format", "json"],
    ["-c", "--debug", "--trust", "again"],
    ["-m", "x", "-r", "abc123", "t"],
    ["--resume=abc", "--continue"],
    ["--command", "review", "src/a.py"],
    ["--command=review"],
    ["--model", "a", "--model", "b", "t"],            # the last one counts, as in click
    ["--model=", "t"],
    ["--max-turns=7", "t"],
    ["t", "--output-format", "bad"],                  # read; the body refuses it (exit 2)
    [],
]


@pytest.mark.parametrize("argv", READ, ids=[" ".join(a) or "(none)" for a in READ])
def test_what_it_reads_is_what_typer_reads(argv: list[str]) -> None:
    args = parse_run_argv(argv)
    assert args is not None
    assert dataclasses.asdict(args) == typer_reads(argv)


LEFT_TO_TYPER = [
    ["--help"], ["-h"], ["a", "b"], ["--max-turns", "0", "t"], ["--max-turns", "x", "t"], ["--nope", "t"],
    ["-yc", "t"], ["-mX", "t"], ["-m=X", "t"], ["--yes=1", "t"], ["--model"], ["--model", "--debug", "t"],
    ["--", "-t"], ["--max-turns=-1", "t"],
]


@pytest.mark.parametrize("argv", LEFT_TO_TYPER, ids=[" ".join(a) for a in LEFT_TO_TYPER])
def test_other_shapes_are_left_to_typer(argv: list[str]) -> None:
    assert parse_run_argv(argv) is None
