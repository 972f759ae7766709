"""``axon init``: ``.axon/`` with a starting permissions file and the ``.gitignore`` that keeps axon's
state out of git; the line saying what was made."""

from __future__ import annotations

from pathlib import Path

__all__ = ["init_project", "PERMISSIONS_TEXT"]

PERMISSIONS_TEXT = ('# What axon may do without asking. A rule is tool or tool(pattern); deny > ask > allow > mode.\n'
                    '# mode = "default"   # read-only | plan | default | accept-edits | auto | yolo\n'
                    'allow = []\nask = []\ndeny = ["read_file(.env*)", "bash(curl *)"]\n')


def init_project(root: Path) -> str:
    """Create what is missing under ``root/.axon``; a permissions file axon writes stays trusted (a
    ``ConfigError`` if the trust record cannot be kept)."""
    from axon_cli.kernel.state import atomic_write, ensure_state_dir

    existed = (root / ".axon").is_dir()
    state = ensure_state_dir(root / ".axon")
    perms = state / "permissions.toml"
    created = []
    if not perms.exists():
        from axon_cli.settings.config import folder_trust
        from axon_cli.settings.trust.widening import PERMISSIONS

        atomic_write(perms, PERMISSIONS_TEXT.encode())
        folder_trust(root).keep_written(PERMISSIONS)   # what axon wrote stays trusted
        created.append("permissions.toml")
    if existed and not created:
        return f"already initialised: {state} (permissions.toml kept as it is)"
    return f"initialised {state}: permissions.toml, and .gitignore keeping axon's state out of git"
