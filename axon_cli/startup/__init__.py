"""The ``axon`` entry point: what can be answered before typer, rich and openai are imported.

``axon --version`` is answered here; ``--help`` of any command comes from the help cache when it
holds a rendering made under the same conditions (``helpcache.py``), else typer renders it and
the cache keeps a copy; ``axon run`` / ``axon chat`` start importing the openai SDK on a
background thread (``preload.py``) before the CLI is even imported. Everything else is
``axon_cli.cli.main``.
"""

from __future__ import annotations

import sys

from axon_cli import __version__

__all__ = ["main"]


def main() -> None:
    argv = sys.argv[1:]
    if argv in (["--version"], ["-V"]):
        sys.stdout.write(f"axon {__version__}\n")
        sys.stdout.flush()
        return
    from axon_cli.startup import helpcache

    if helpcache.is_help_request(argv):
        if helpcache.serve(argv):
            return
        helpcache.render_and_keep(argv, _cli_main)
        return
    from axon_cli.startup import preload

    preload.start(argv)
    _cli_main()


def _cli_main() -> None:
    from axon_cli.cli import main as cli_main

    cli_main()
