"""One folder's trust: which of its widening items are in force, and what waits for the user.

An item is in force when the record holds its id with the same digest, or when the folder is trusted
for this run (``--trust``, ``AXON_TRUST=1``, the chat screen's "trust for this session"): then the
items the folder holds *at start* are in force, pinned by their digests like remembered ones, so a
file changed during the run (by the model, by a ``git pull``) is not trusted by the way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from axon_cli.kernel.errors import ConfigError
from axon_cli.kernel.loaders import load_json
from axon_cli.kernel.state import read_toml
from axon_cli.settings.trust.files import extension_items
from axon_cli.settings.trust.items import WideningItem
from axon_cli.settings.trust.trust_record import Approved, Record, TrustStore, folder_key
from axon_cli.settings.trust.widening import JSON_SOURCES, SOURCES, Baseline, find, keep_trusted

__all__ = ["FolderTrust", "Assessment", "Pending", "user_baseline", "read_source"]


def _table(path: Path) -> dict[str, Any]:
    """A TOML file's table, or {} when it is missing or broken (its loader reports that)."""
    try:
        return read_toml(path) if path.is_file() else {}
    except ConfigError:
        return {}


def read_source(root: Path, source: str) -> dict[str, Any]:
    """One project file's raw data ({} when missing or unreadable)."""
    path = root / source
    if source not in JSON_SOURCES:
        return _table(path)
    try:
        data = load_json(path) if path.is_file() else {}
    except ConfigError:
        return {}
    return data if isinstance(data, dict) else {}


def user_baseline(user_dir: Path, default_sandbox: str) -> Baseline:
    """The mode and sandbox the user's own files give (a project value no wider is no item)."""
    config, perms = _table(user_dir / "config.toml"), _table(user_dir / "permissions.toml")
    return Baseline(mode=str(perms.get("mode") or config.get("mode") or "default"),
                    sandbox=str(config.get("sandbox") or default_sandbox))


@dataclass(frozen=True)
class Pending:
    item: WideningItem
    status: Literal["new", "changed"]
    was: str = ""           # what the user trusted under this id before (changed items)
    files: tuple[str, ...] = ()   # the pinned files whose content is not what the user trusted


def changed_files(was: Approved, item: WideningItem) -> tuple[str, ...]:
    """The files ``item`` runs whose digest differs from the trusted one (new or gone ones too)."""
    before, now = dict(was.pins), dict(item.pins)
    return tuple(sorted(rel for rel in set(before) | set(now) if before.get(rel) != now.get(rel)))


@dataclass
class Assessment:
    pending: list[Pending] = field(default_factory=list)
    trusted: list[WideningItem] = field(default_factory=list)
    for_run: list[WideningItem] = field(default_factory=list)   # in force for this run only
    removed: list[tuple[str, str]] = field(default_factory=list)  # (id, what was shown) no longer here


class FolderTrust:
    """The ``TrustView`` of one folder, and the filter every loader of a project file applies."""

    def __init__(self, root: Path, *, baseline: Baseline | None = None, for_run: bool = False,
                 store: TrustStore | None = None) -> None:
        self.root = Path(folder_key(root))
        self.baseline = baseline or Baseline()
        self.store = store or TrustStore()
        self.record, self.problem = self.store.folder(self.root)
        self.for_run: Record = {}
        if for_run:
            self.trust_for_run()

    @classmethod
    def load(cls, root: Path, user_dir: Path, *, for_run: bool = False, default_sandbox: str = "off") -> FolderTrust:
        return cls(root, baseline=user_baseline(user_dir, default_sandbox), for_run=for_run)

    # -- the view ---------------------------------------------------------------------------------
    def allows(self, item: WideningItem) -> bool:
        return _holds(self.record, item) or _holds(self.for_run, item)

    def in_force(self, source: str, data: dict[str, Any]) -> dict[str, Any]:
        """One project file's data without what is waiting for trust."""
        return keep_trusted(source, data, self.baseline, self.allows, self.root)[0]

    # -- what the folder holds --------------------------------------------------------------------
    def items(self) -> list[WideningItem]:
        """Every widening item the folder holds now."""
        out: list[WideningItem] = []
        for source in SOURCES:
            out += [f.item for f in find(source, read_source(self.root, source), self.baseline, self.root)]
        return out + extension_items(self.root)

    def assess(self) -> Assessment:
        found = Assessment()
        items = self.items()
        for item in items:
            known = self.record.get(item.id)
            if _holds(self.record, item):
                found.trusted.append(item)
            elif _holds(self.for_run, item):
                found.for_run.append(item)
            else:
                found.pending.append(Pending(item, "changed", known.shows, changed_files(known, item)) if known
                                     else Pending(item, "new"))
        here = {i.id for i in items}
        found.removed = [(item_id, a.shows) for item_id, a in self.record.items() if item_id not in here]
        return found

    # -- changing it ------------------------------------------------------------------------------
    def trust_for_run(self, found: Assessment | None = None) -> None:
        """What the folder holds now (or what ``found`` listed) is in force until axon exits; nothing
        is written."""
        items = self.items() if found is None else [p.item for p in found.pending]
        self.for_run.update((i.id, Approved.of(i)) for i in items)

    def approve(self, found: Assessment) -> list[WideningItem]:
        """Remember what ``found`` listed (trusted, for this run, and pending: exactly what the user
        was shown); entries for items no longer here go. Returns the items that were pending."""
        waiting = [p.item for p in found.pending]
        self.record = self.store.replace(self.root, [*found.trusted, *found.for_run, *waiting])
        return waiting

    def keep(self, items: list[WideningItem]) -> None:
        """Remember ``items``: changes axon makes on the user's behalf (the ``p`` answer, ``axon init``)."""
        if items:
            self.record = self.store.keep(self.root, items)

    def keep_written(self, source: str) -> None:
        """Remember the widening items of a project file axon itself has just written (``axon init``)."""
        self.keep([f.item for f in find(source, read_source(self.root, source), self.baseline, self.root)])

    def revoke(self) -> int:
        """Forget the folder; returns how many items it had trusted."""
        count = len(self.record)
        self.record = self.store.update(self.root, lambda record: {})
        return count


def _holds(record: Record, item: WideningItem) -> bool:
    known = record.get(item.id)
    return known is not None and known.digest == item.digest
