"""``axon chat``'s arguments and body, shared by the typer command and the fast path that skips typer.

As for ``axon run`` (``run_entry.py``), importing typer and building the command tree costs tens of
milliseconds before the prompt. ``parse_chat_argv`` reads the common shapes itself — ``--flag``,
``--option VALUE``, ``--option=VALUE``, ``-m VALUE``, a bare ``--resume`` (the session picker) —
and returns None for anything else (``--help``, an unknown or combined flag, an argument), which
typer then reads and reports in its own words. ``CHAT_OPTIONS`` describes the options once:
``cli.py`` builds the typer command from it, and ``tests/ui/test_chat_entry.py`` holds the reading
against typer's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from axon_cli.app.ui.command_support import guard, load, project_root, setup_logging
from axon_cli.app.ui.run_entry import RunOption, option

__all__ = ["ChatArgs", "CHAT_OPTIONS", "CHAT_HELP", "parse_chat_argv", "chat"]


@dataclass(frozen=True)
class ChatArgs:
    """The parameters of ``axon chat``, named as the typer command names them."""

    cont: bool = False
    resume: str | None = None         # "": pick one from a list
    model: str | None = None
    base_url: str | None = None
    mode: str | None = None
    sandbox: str | None = None
    tool_protocol: str | None = None
    debug: bool = False
    trust: bool = False


CHAT_HELP = "The interactive REPL in the current directory."
CHAT_OPTIONS: tuple[RunOption, ...] = (
    RunOption("cont", ("--continue", "-c"), "Resume this project's latest session.", flag=True),
    RunOption("resume", ("--resume", "-r"), "Resume session ID; without an ID, pick one from a list."),
    *(option(name) for name in ("model", "base_url", "mode", "sandbox", "tool_protocol", "debug", "trust")),
)
_VALUES = {s: o.param for o in CHAT_OPTIONS if not o.flag for s in o.spellings}
_FLAGS = {s: o.param for o in CHAT_OPTIONS if o.flag for s in o.spellings}


def parse_chat_argv(argv: list[str]) -> ChatArgs | None:
    """``argv``: what follows ``chat``. The arguments as typer would read them (a bare ``--resume``
    as the empty ID, ``cli._bare_resume``), or None when typer should read them."""
    values: dict[str, object] = {}
    rest = list(argv)
    while rest:
        arg = rest.pop(0)
        name, eq, inline = arg.partition("=")
        if name in _FLAGS and not eq:
            values[_FLAGS[name]] = True
        elif name in _VALUES and (eq or arg == name):
            if eq and not name.startswith("--"):
                return None                      # -m=x: typer's reading
            if not eq:
                if not rest or rest[0].startswith("-"):
                    if _VALUES[name] != "resume":
                        return None
                    inline = ""                  # a bare --resume: the picker
                else:
                    inline = rest.pop(0)
            values[_VALUES[name]] = inline
        else:
            return None                          # --help, an argument, an unknown flag: typer's
    return ChatArgs(**values)  # type: ignore[arg-type]


def chat(args: ChatArgs) -> None:
    """Settle the folder's trust (its screen before anything of the project is used), then the REPL."""
    root = project_root()
    setup_logging(root, args.debug)

    def body() -> None:
        from axon_cli.app.ui.render import make_console
        from axon_cli.app.ui.repl import run_repl
        from axon_cli.app.ui.trust_screen import settle_trust

        flags: dict[str, Any] = dict(model=args.model, base_url=args.base_url, mode=args.mode, sandbox=args.sandbox,
                     tool_protocol=args.tool_protocol)
        loaded = load(root, trust_run=args.trust, **flags)
        if settle_trust(loaded.trust, make_console()) in ("remember", "session"):
            loaded = load(root, trust=loaded.trust, **flags)     # now with what the user trusted
        run_repl(loaded, root, cont=args.cont, resume=args.resume)
    guard(body)
