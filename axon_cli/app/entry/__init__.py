"""The ``axon`` entry point: what can be answered before typer, rich and openai are imported.

``axon --version`` is answered here; ``--help`` of any command comes from the help cache when it
holds a rendering made under the same conditions (``helpcache.py``), else typer renders it and
the cache keeps a copy; ``axon run`` / ``axon chat`` start importing the openai SDK on a
background thread (``app/preload.py``) before the CLI is even imported; ``axon run`` also pauses the
garbage collector during start-up (``axon_cli/agent/model/gcpause.py``), reads its own arguments when
they are of the common shapes (``axon_cli/app/ui/run_entry.py``: no typer) and skips the interpreter's
teardown once everything is flushed (``kernel/process_exit.py``); ``axon chat`` reads its arguments
without typer too (``axon_cli/app/ui/chat_entry.py``). Everything else is ``axon_cli.app.entry.cli.main``.
Before any of it, ``kernel/interrupts.install`` makes a Ctrl-C, SIGTERM or SIGHUP one line on stderr.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, NoReturn

from axon_cli.kernel.version import __version__

if TYPE_CHECKING:
    from axon_cli.app.ui.run_entry import RunArgs

__all__ = ["main"]


def main() -> None:
    from axon_cli.kernel import interrupts

    interrupts.install()              # first: a Ctrl-C from here on is one line (``interrupts.py``)
    try:
        _main(sys.argv[1:])
    except BaseException as e:
        if not interrupts.after_interrupt(e):
            raise
        sys.stderr.write("axon: interrupted\n")
        raise SystemExit(130) from None


def _main(argv: list[str]) -> None:
    if argv in (["--version"], ["-V"]):
        sys.stdout.write(f"axon {__version__}\n")
        sys.stdout.flush()
        return
    from axon_cli.app.entry import helpcache

    if helpcache.is_help_request(argv):
        if helpcache.serve(argv):
            return
        helpcache.render_and_keep(argv, _cli_main)
        return
    from axon_cli.app import preload

    if argv[:1] == ["chat"]:
        preload.start(argv)
        _chat_main(argv)
        return
    if argv[:1] != ["run"]:
        preload.start(argv)
        if argv[:1] in (["acp"], ["mcp-server"]):     # long-lived: the ordinary teardown
            _cli_main()
            return
        _report_main()
        return
    _run_main(argv)


def _report_main() -> None:
    """The short commands (config, tools, doctor, undo, …) leave as ``axon run`` does, without teardown
    (``kernel/process_exit.py``): a Ctrl-C that lands as they end still meets axon's handler, never the default
    one that finalizing the interpreter puts back (a silent death by SIGINT)."""
    from axon_cli.kernel import process_exit as finish

    try:
        _cli_main()
    except SystemExit as e:
        finish.exit_now(e)
    finish.exit_now(SystemExit(0))


def _run_main(argv: list[str]) -> None:
    """``axon run``: no garbage collection until the first request (``gcpause.py``), no typer when
    the arguments are of the common shapes (``app/ui/run_entry.py``), no teardown after the end
    (``kernel/process_exit.py``)."""
    from axon_cli.agent.model import gcpause
    from axon_cli.app import preload
    from axon_cli.app.ui.run_entry import parse_run_argv
    from axon_cli.kernel import process_exit as finish

    gcpause.pause()
    preload.start(argv)
    args = parse_run_argv(argv[1:])
    try:
        if args is None:
            _cli_main()
        else:
            _run_without_typer(args)
    except SystemExit as e:
        finish.exit_now(e)


def _chat_main(argv: list[str]) -> None:
    """``axon chat``: no typer when the arguments are of the common shapes (``app/ui/chat_entry.py``);
    the ordinary teardown (a long-lived command)."""
    from axon_cli.app.ui.chat_entry import chat, parse_chat_argv

    args = parse_chat_argv(argv[1:])
    if args is None:
        _cli_main()
        return
    _escape_unencodable_output()
    chat(args)


def _run_without_typer(args: RunArgs) -> NoReturn:
    from axon_cli.app.ui.command_support import interrupted
    from axon_cli.app.ui.run_entry import run

    _escape_unencodable_output()
    try:
        code = run(args)
    except KeyboardInterrupt:
        interrupted()
    raise SystemExit(code)


def _cli_main() -> None:
    from axon_cli.app.entry.cli import main as cli_main

    _escape_unencodable_output()
    cli_main()


def _escape_unencodable_output() -> None:
    """A lone surrogate (a file name that is not UTF-8, a model's "\\ud800") printed as a backslash
    escape instead of a UnicodeEncodeError; inside a JSON string the escape is valid JSON."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "") in ("strict", "surrogateescape"):
            reconfigure(errors="backslashreplace")
