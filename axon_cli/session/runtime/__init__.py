"""A running session: built from settings (``opening``: ``build_runtime``, ``open_session``) and
what a frontend asks of it (``runtime``: ``Runtime``, the event bus).
"""
