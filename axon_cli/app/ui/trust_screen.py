"""``axon chat`` in a folder whose files would widen what axon does: one screen, before anything runs.

It lists exactly what would be enabled (each MCP server's command line or URL, each allow rule, the
mode, the endpoint the key would go to, each hook, tool file and command with tools) and reads one
key: ``t`` trust (remembered), ``s`` trust for this session, Enter (or anything else) continue
without them; Ctrl-C quits. Without a terminal it asks nothing: the lines go to stderr as with ``axon run``.
"""

from __future__ import annotations

import sys
from typing import Literal

from rich.console import Console, Group
from rich.panel import Panel
from rich.text import Text

from axon_cli.app.reports.trust import describe, ignored_lines
from axon_cli.settings.trust.folder import Assessment, FolderTrust

__all__ = ["settle_trust", "trust_panel"]

Choice = Literal["remember", "session", "without"]


def trust_panel(trust: FolderTrust, found: Assessment) -> Panel:
    body = [Text.assemble(("new  " if p.status == "new" else "changed  ", "bold yellow"), describe(p))
            for p in found.pending]
    title = Text.assemble(("this folder's files would widen what axon does", "bold"),
                          (f"  {trust.root}", "dim"))
    return Panel(Group(*body), title=title, title_align="left", border_style="yellow", expand=True)


def _choices() -> Text:
    return Text.assemble(("t", "bold green"), " trust (remembered) · ", ("s", "bold"), " trust for this session · ",
                         ("Enter", "bold"), " continue without them")


def settle_trust(trust: FolderTrust, console: Console) -> Choice | None:
    """Show what waits for trust and apply the user's answer to ``trust``; None when nothing waits.
    Any answer but None means the settings must be loaded again through ``trust``."""
    found = trust.assess()
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        for line in ignored_lines(trust, found):
            sys.stderr.write(line + "\n")
        return "without" if found.pending else None
    if trust.problem:
        console.print(Text(f"warning: {trust.problem}", "yellow"))
    if not found.pending:
        return None
    from axon_cli.app.ui.confirm import read_choice

    console.print(trust_panel(trust, found))
    console.print(_choices())
    try:
        key = read_choice("> ", "ts", allow_empty=True)     # Ctrl-C: axon exits (130), nothing trusted
    except EOFError:
        key = ""
    if key == "t":
        trust.approve(found)
        console.print(Text(f"✓ trusted; remembered in {trust.store.path}", "green"))
        return "remember"
    if key == "s":
        trust.trust_for_run(found)
        console.print(Text("✓ trusted for this session", "green"))
        return "session"
    console.print(Text("continuing without them (`axon trust` shows them again)", "dim"))
    return "without"
