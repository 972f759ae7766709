"""axon: a terminal coding agent for any OpenAI-compatible endpoint."""

__version__ = "0.1.0"
__all__ = ["__version__"]
