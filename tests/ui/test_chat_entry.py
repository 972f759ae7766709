"""``axon chat``'s own argument reader (``app/ui/chat_entry.py``) against typer's definition of the
command: the same spellings, and for every argument list it reads, the same values typer would pass
(a bare ``--resume`` as ``cli._bare_resume`` turns it into the empty ID for typer)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import typer

from axon_cli.app.entry.cli import _bare_resume, app
from axon_cli.app.ui.chat_entry import ChatArgs, parse_chat_argv


def chat_command() -> Any:
    return typer.main.get_command(app).commands["chat"]   # type: ignore[attr-defined]


def typer_reads(argv: list[str]) -> dict[str, object]:
    ctx = chat_command().make_context("chat", _bare_resume(["chat", *argv])[1:])
    return dict(ctx.params)


def test_the_dataclass_names_every_parameter_of_the_typer_command() -> None:
    assert {f.name for f in dataclasses.fields(ChatArgs)} == {p.name for p in chat_command().params}


READ = [
    [],
    ["--continue"],
    ["-c", "--debug", "--trust"],
    ["--resume"],
    ["-r"],
    ["--resume", "--debug"],
    ["--resume", "abc123"],
    ["--resume=abc", "-m", "x"],
    ["--model", "m1", "--base-url", "http://h/v1", "--mode", "auto", "--sandbox", "off"],
    ["--tool-protocol=text", "--model", "a", "--model", "b"],
    ["--model="],
]


@pytest.mark.parametrize("argv", READ, ids=[" ".join(a) or "(none)" for a in READ])
def test_what_it_reads_is_what_typer_reads(argv: list[str]) -> None:
    args = parse_chat_argv(argv)
    assert args is not None
    assert dataclasses.asdict(args) == typer_reads(argv)


LEFT_TO_TYPER = [["--help"], ["-h"], ["hello"], ["--nope"], ["-cr"], ["-m=X"], ["--continue=1"], ["--model"],
                 ["--model", "--debug"], ["--", "-c"]]


@pytest.mark.parametrize("argv", LEFT_TO_TYPER, ids=[" ".join(a) for a in LEFT_TO_TYPER])
def test_other_shapes_are_left_to_typer(argv: list[str]) -> None:
    assert parse_chat_argv(argv) is None
