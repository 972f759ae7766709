"""``axon sessions``: this project's sessions, one row each (id, date, turns, tokens, first prompt)."""

from __future__ import annotations

from pathlib import Path

from axon_cli.session.conversation.transcript import list_sessions

__all__ = ["sessions_table"]


def sessions_table(state_dir: Path) -> str:
    """The text of ``axon sessions``: id, date, first prompt, turns, tokens."""
    infos = list_sessions(state_dir)
    if not infos:
        return "no sessions yet in this project"
    rows = [("ID", "DATE", "TURNS", "TOKENS", "FIRST PROMPT")]
    for s in infos:
        prompt = " ".join(s.first_prompt.split())
        prompt = prompt if len(prompt) <= 60 else prompt[:59] + "…"
        rows.append((s.id, s.started[:16].replace("T", " "), str(s.turns), f"{s.tokens:,}", prompt))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join(f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:>{widths[2]}}  "
                     f"{r[3]:>{widths[3]}}  {r[4]}".rstrip() for r in rows)
