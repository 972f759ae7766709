"""Text about a folder's trust: ``axon trust`` (and ``--yes``/``--revoke``/``--list``), the lines
``axon run`` writes for what it ignored, and the "waiting for trust" part of ``axon config`` and
``axon permissions``. Every line goes through secret masking (a header in ``.mcp.json`` may hold one).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from axon_cli.machinery.masking import mask
from axon_cli.settings.trust.folder import Assessment, FolderTrust, Pending
from axon_cli.settings.trust.items import WideningItem
from axon_cli.settings.trust.trust_record import TrustStore

__all__ = ["describe", "ignored_lines", "waiting_lines", "status_text", "approved_text", "revoked_text",
           "folders_text", "HOW_TO_TRUST"]

HOW_TO_TRUST = "to trust them: axon trust --yes (see them first: axon trust); for one run only: --trust or AXON_TRUST=1"


def _line(item: WideningItem) -> str:
    return mask(f"{item.shows}  [{item.source}]")


def describe(pending: Pending) -> str:
    """One line: what the item would enable, where it comes from, and what changed."""
    if pending.status == "changed" and pending.files and pending.item.shows == pending.was:
        files = ", ".join(pending.files)
        return _line(pending.item) + mask(f"  (changed: the content of {files} is not what you trusted)")
    if pending.status == "changed":
        return _line(pending.item) + mask(f"  (changed; you had trusted: {pending.was})")
    return _line(pending.item)


def ignored_lines(trust: FolderTrust, found: Assessment) -> list[str]:
    """For ``axon run`` (stderr): one line per ignored item, then the command that trusts them."""
    lines = [f"axon: warning: {trust.problem}"] if trust.problem else []
    if found.pending:
        lines += [f"axon: ignored until this folder is trusted: {describe(p)}" for p in found.pending]
        lines.append(f"axon: {HOW_TO_TRUST}")
    return lines


def waiting_lines(found: Assessment, shown: Callable[[WideningItem], bool]) -> list[str]:
    """The "waiting for trust" block of ``axon config`` / ``axon permissions`` / ``axon mcp list``."""
    mine = [p for p in found.pending if shown(p.item)]
    if not mine:
        return []
    return ["waiting for trust (not in force; `axon trust` to review, `axon trust --yes` to trust):",
            *(f"  {describe(p)}" for p in mine)]


def status_text(trust: FolderTrust, found: Assessment) -> str:
    lines = [f"folder: {trust.root}", f"trust record: {trust.store.path}"]
    if trust.problem:
        lines.append(f"warning: {trust.problem}")
    if not (found.pending or found.trusted or found.for_run or found.removed):
        lines.append("nothing here widens what axon does (no allow rules, wider mode or sandbox, endpoint, key, "
                     "MCP servers, hooks, tools or commands with tools): nothing to trust")
        return "\n".join(lines)
    sections = [
        ("waiting for trust (not in force):", [f"  {p.status:<8} {describe(p)}" for p in found.pending]),
        ("in force for this run only (--trust, AXON_TRUST=1):", [f"  {_line(i)}" for i in found.for_run]),
        ("trusted:", [f"  {_line(i)}" for i in found.trusted]),
        ("no longer here (forgotten at the next `axon trust --yes`):",
         [f"  {mask(shows or item_id)}" for item_id, shows in found.removed]),
    ]
    for title, body in sections:
        if body:
            lines += ["", title, *body]
    if found.pending:
        lines += ["", HOW_TO_TRUST[0].upper() + HOW_TO_TRUST[1:]]
    return "\n".join(lines)


def approved_text(trust: FolderTrust, approved: list[WideningItem]) -> str:
    if not approved:
        return f"nothing waiting for trust in {trust.root}"
    return "\n".join([f"trusted in {trust.root} (recorded in {trust.store.path}):",
                      *(f"  {_line(i)}" for i in approved)])


def revoked_text(trust: FolderTrust, count: int) -> str:
    if not count:
        return f"{trust.root} was not trusted"
    return (f"forgot the trust of {trust.root} ({count} item{'s' if count != 1 else ''}); "
            "its widening settings are ignored until trusted again")


def folders_text(store: TrustStore) -> str:
    folders, problem = store.folders()
    lines = [f"warning: {problem}"] if problem else []
    if not folders:
        return "\n".join([*lines, f"no trusted folders (record: {store.path})"])
    for path, record, updated in folders:
        gone = "" if Path(path).is_dir() else "  (folder gone)"
        lines.append(f"{path}  {len(record)} item{'s' if len(record) != 1 else ''}  (updated {updated}){gone}")
    return "\n".join(lines)
