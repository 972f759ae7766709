"""The ``tool_search`` tool: ``tool`` (the spec and handler) and ``ranking`` (keyword ranking of the
deferred tools)."""
