"""What a shell command does to files that already exist: destroys them, edits them, or neither.

The mode ladder turns on it. ``default`` asks before a destructive call and before an in-place
edit; ``accept-edits`` runs edits; ``auto`` runs both when the sandbox confines them and a
snapshot can undo them. Destructive: what always destroys (``rm``, ``chmod``, ``git reset --hard``
…: the unit's ``destructive``), and overwriting a file that exists (``>``, ``cp``/``mv``/``ln -f``/
``tee``/``dd``, ``sort -o``, ``tar -cf``, ``curl -o`` onto it: its ``overwrites``), removing one
that exists (``gzip``'s input, ``zip -m``: its ``deletes``) and moving one away (``mv``: its ``moves``). An edit changes an existing file in place (``sed -i``,
formatters, ``>>``: its ``edits``). Creating a new file is neither; nor is running a program whose
own file operations are opaque (``make``). The analysis (``shell.targets``) names the words; here
the disk says which exist (``exists``/``is_dir``; without them every word is taken to name a file).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from axon_cli.shell.analyze import Unit

__all__ = ["Effects", "unit_effects"]

Exists = Callable[[str], bool]     # a word of the command (relative to the project) names something


@dataclass
class Effects:
    destroys: list[str] = field(default_factory=list)   # why it is destructive, one reason a cause
    edits: list[str] = field(default_factory=list)      # the files it edits in place (words as written)

    def add(self, other: Effects) -> None:
        self.destroys += [r for r in other.destroys if r not in self.destroys]
        self.edits += [e for e in other.edits if e not in self.edits]


def unit_effects(unit: Unit, exists: Exists | None = None, is_dir: Exists | None = None) -> Effects:
    """The effects of one simple command on the files that exist now."""
    there: Exists = exists or (lambda _w: True)
    folder: Exists = is_dir or (lambda _w: False)
    out = Effects()
    if unit.destructive:
        out.destroys.append(unit.destructive)
    for word in unit.deletes:         # a compressor's input, `zip -m`'s files
        if there(word):
            out.destroys.append(f"removes {word}")
            break
    for word in unit.moves:           # `mv a b`: the path a is gone
        if there(word):
            out.destroys.append(f"moves {word} away")
            break
    for word in unit.overwrites:      # `dir/`: files a recursive copy may replace in an existing directory
        if there(word) and (word.endswith("/") or not folder(word)):
            out.destroys.append(f"overwrites {word}")
            break
    out.edits = [w for w in unit.edits if there(w) and not folder(w)]
    return out
