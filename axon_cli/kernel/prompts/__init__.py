"""The prompt templates (``*.md`` beside this file) that axon sends to the model.

A template is a whole file (``load_template``), or a file of several short messages, one per
``## name`` heading (``load_sections``): what comes before the first heading describes the file and
is never sent. ``{placeholders}`` are filled in at run time with ``str.format``.
"""

from __future__ import annotations

import re
from importlib import resources

__all__ = ["load_template", "load_sections"]

_HEADING = re.compile(r"^## ([\w-]+)[ \t]*$", re.M)


def load_template(name: str) -> str:
    """The text of template ``name`` (e.g. ``"system.md"``), as shipped with the package."""
    return (resources.files(__name__) / name).read_text(encoding="utf-8")


def load_sections(name: str) -> dict[str, str]:
    """The messages of template ``name`` by heading: each section's text without surrounding blank
    lines (a message's own line breaks are kept)."""
    parts = _HEADING.split(load_template(name))
    return {key: body.strip("\n") for key, body in zip(parts[1::2], parts[2::2], strict=True)}
