"""What every ``axon`` command body shares, without typer: the project root, the settings, the
debug log, one-line failures and the guard that turns a user error or Ctrl-C into an exit code.

Typer is not needed to run a command, only to read its flags: ``axon run``'s fast path
(``run_entry.py``) uses these as they are, and ``cli.py`` uses them inside its typer commands. A
failure is a ``SystemExit`` with the code, which typer lets through unchanged.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

if TYPE_CHECKING:
    from axon_cli.settings.config import LoadedSettings
    from axon_cli.settings.trust.folder import FolderTrust

__all__ = ["fail", "guard", "project_root", "load", "setup_logging", "interrupted"]

T = TypeVar("T")


def fail(message: str, code: int = 1) -> NoReturn:
    """One line on stderr (``axon: error: …``; a URL's credentials as ``***@``) and leave with ``code``."""
    from axon_cli.machinery.masking.userinfo import hide_userinfo

    sys.stderr.write(f"axon: error: {hide_userinfo(message)}\n")
    raise SystemExit(code)


def interrupted() -> NoReturn:
    """Ctrl-C: one line, exit code 130."""
    sys.stderr.write("axon: interrupted\n")
    raise SystemExit(130)


def guard(fn: Callable[[], T]) -> T:
    """Run a command body: user errors become one line and an exit code, never a traceback."""
    from axon_cli.kernel.errors import AxonError

    try:
        return fn()
    except AxonError as e:
        fail(str(e), e.exit_code)
    except KeyboardInterrupt:
        interrupted()


def project_root() -> Path:
    from axon_cli.kernel.state import find_project_root

    return find_project_root()


def load(root: Path, trust_run: bool = False, trust: FolderTrust | None = None, **flags: Any) -> LoadedSettings:
    """The settings for a command, its flags (None: not given) over the files and the environment."""
    from axon_cli.settings.config import load_settings

    return load_settings(root, flags=flags, trust_run=trust_run, trust=trust)


def setup_logging(root: Path, debug: bool) -> None:
    """``--debug`` or ``AXON_DEBUG``: axon's log goes to ``.axon/debug.log``; otherwise nowhere."""
    import logging
    import os

    logger = logging.getLogger("axon")
    logger.propagate = False
    if debug or os.environ.get("AXON_DEBUG"):
        from axon_cli.kernel.state import ensure_state_dir

        handler = logging.FileHandler(ensure_state_dir(root / ".axon") / "debug.log")
        from axon_cli.machinery.masking.written import MaskingFormatter

        handler.setFormatter(MaskingFormatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    else:
        logger.addHandler(logging.NullHandler())
