"""The prompt templates (``*.md`` beside this file) that axon sends to the model."""

from __future__ import annotations

from importlib import resources

__all__ = ["load_template"]


def load_template(name: str) -> str:
    """The text of template ``name`` (e.g. ``"system.md"``), as shipped with the package."""
    return (resources.files(__name__) / name).read_text(encoding="utf-8")
