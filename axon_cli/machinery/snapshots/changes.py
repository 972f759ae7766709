"""What a turn changed, between its ``before`` and ``after`` snapshots: content and modes alike.

The trees give the files whose content (or symlink-ness, or git's executable bit) changed; the
modes blobs (``modes``) add the files whose permission bits alone changed, the files whose content
was not held at one end (unreadable, over the cap or budget), the directories that appeared, went
or changed bits, and the directories that became unlistable during the turn (all of whose contents
count as changed). What lies in a directory either snapshot left out as a whole is no change undo
can make. A record written before modes existed, or whose modes blob is unusable, falls back to the
trees alone (``note`` says why).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from axon_cli.machinery.snapshots.permission_bits import Modes, ModesError, parse, under
from axon_cli.machinery.snapshots.shadow import Entry, ShadowRepo, SnapshotError, split_paths

Record = dict[str, Any]

__all__ = ["Changes", "compare", "changed_paths", "tree_entries", "load_modes"]


@dataclass
class Changes:
    files: dict[str, tuple[Entry | None, Entry | None]] = field(default_factory=dict)  # rel -> (before, after)
    dirs: set[str] = field(default_factory=set)          # directories that appeared, went or changed bits
    locked: set[str] = field(default_factory=set)        # directories that became unlistable in the turn
    before: Modes | None = None
    after: Modes | None = None
    note: str = ""                                       # why modes are not restored, when they are not

    def paths(self) -> list[str]:
        """The changed paths for listing (directories end in ``/``)."""
        dirs = {f"{d}/" if d else "./" for d in self.dirs | self.locked}
        return sorted(set(self.files) | dirs)


def tree_entries(repo: ShadowRepo, tree: str) -> dict[str, Entry]:
    """Every file of a tree with its entry (``git ls-tree -r``)."""
    out: dict[str, Entry] = {}
    for item in split_paths(repo.git("ls-tree", "-r", "-z", "--full-tree", tree)):
        meta, _, rel = item.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            out[rel] = Entry(parts[0], parts[2])
    return out


def load_modes(repo: ShadowRepo, oid: str | None) -> Modes | None:
    """The modes blob ``oid`` (None: the record has none); ModesError when it is missing or corrupt."""
    if oid is None:
        return None
    try:
        data = repo.blobs([oid]).get(oid)
    except SnapshotError as e:
        raise ModesError(f"the file modes of snapshot {oid[:12]} cannot be read ({e})") from None
    if data is None:
        raise ModesError(f"the file modes of snapshot {oid[:12]} are missing from the shadow repository")
    return parse(data, oid)


def compare(repo: ShadowRepo, record: Record) -> Changes:
    """What the (settled) turn ``record`` changed."""
    out = Changes()
    for rel, old, new in repo.diff(record["before"], record["after"]):
        out.files[rel] = (old, new)
    try:
        before, after = load_modes(repo, record.get("before_modes")), load_modes(repo, record.get("after_modes"))
    except ModesError as e:
        out.note = str(e)
        return out
    if before is None or after is None:
        return out
    out.before, out.after = before, after
    out.locked = after.locked - before.locked
    for rel in before.unreadable.keys() | after.unreadable.keys():
        if before.unreadable.get(rel) != after.unreadable.get(rel):
            out.files.setdefault(rel, (None, None))
    _mode_changes(repo, record, out, before, after)
    for d in before.dirs.keys() | after.dirs.keys():
        if before.dirs.get(d) != after.dirs.get(d):
            out.dirs.add(d)
    out.files = {rel: e for rel, e in out.files.items() if not under(rel, after.locked)}
    out.dirs = {d for d in out.dirs if not under(d, after.locked) and not under(d, before.locked)}
    left = before.left_out | after.left_out                # never held: what is found there is left alone
    if left:
        out.files = {rel: e for rel, e in out.files.items() if not under(rel, left)}
        out.dirs = {d for d in out.dirs if d not in left and not under(d, left)}
    return out


def _mode_changes(repo: ShadowRepo, record: Record, out: Changes, before: Modes, after: Modes) -> None:
    """Files with the same content at both ends whose permission bits differ."""
    suspects = before.files.keys() | after.files.keys()
    entries: dict[str, Entry] | None = None
    if (before.plain, before.exe) != (after.plain, after.exe):        # a chmod of (almost) everything
        entries = tree_entries(repo, record["after"])
        suspects |= entries.keys()
    suspects -= out.files.keys()
    if not suspects:
        return
    entries = entries if entries is not None else tree_entries(repo, record["after"])
    for rel in suspects:
        entry = entries.get(rel)
        if entry is None or entry.mode == "120000":
            continue
        if before.file_mode(rel, entry.mode) != after.file_mode(rel, entry.mode):
            out.files[rel] = (entry, entry)


def changed_paths(repo: ShadowRepo, record: Record) -> list[str]:
    return compare(repo, record).paths()
