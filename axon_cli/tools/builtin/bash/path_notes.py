"""What the ``bash`` tool adds after a command that failed on a path that does not exist.

``rm: cannot remove 'fixtures/OBSOLETE': No such file or directory`` left a small model with nothing
to go on: it answered "the file does not exist". The result now ends with what the nearest existing
directory holds (names only, never hidden ones, at most ``SHOWN``), so the next step can be a real
path. A path that starts with the project directory's own name (``proj/app.ini``, run inside
``proj``) is pointed at the path that exists. Paths outside the project are not looked at.
"""

from __future__ import annotations

import re
from pathlib import Path

from axon_cli.tools.spec import ToolContext

__all__ = ["missing_path_note", "SHOWN"]

SHOWN = 12
_QUOTED = re.compile(r"['‘`]([^'’`\n]+)['’`][^\n]*No such file or directory")
_PLAIN = re.compile(r"(?:^|[\s:])([^\s:'‘`]+): No such file or directory", re.M)


def missing_path_note(output: str, ctx: ToolContext) -> str:
    """"[x does not exist; dir/ holds: …]" for the first missing path in ``output``, or ""."""
    if "No such file or directory" not in output:
        return ""
    m = _QUOTED.search(output) or _PLAIN.search(output)
    if m is None:
        return ""
    path = ctx.resolve(m.group(1))
    root = ctx.project_root
    if not path.is_relative_to(root) or path.exists():
        return ""
    named = Path(m.group(1))
    if not named.is_absolute() and len(named.parts) > 1 and named.parts[0] == root.name \
            and (root.joinpath(*named.parts[1:])).exists():    # "proj/app.ini" run inside proj/
        inner = "/".join(named.parts[1:])
        return (f"[{named} does not exist: commands run in the project root ({root.name}) itself, "
                f"so the path is {inner}]")
    parent = path.parent
    while parent != root and not parent.is_dir():
        parent = parent.parent
    names = _names(parent)
    if names is None:
        return ""
    where = "the project root" if parent == root else f"{ctx.relative(parent)}/"
    if not names:
        return f"[{ctx.relative(path)} does not exist; {where} is empty]"
    more = f", … ({len(names) - SHOWN} more)" if len(names) > SHOWN else ""
    return f"[{ctx.relative(path)} does not exist; {where} holds: {', '.join(names[:SHOWN])}{more}]"


def _names(directory: Path) -> list[str] | None:
    try:
        return sorted(p.name + ("/" if p.is_dir() else "") for p in directory.iterdir()
                      if not p.name.startswith("."))
    except OSError:
        return None
