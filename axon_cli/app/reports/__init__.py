"""The text of axon's reporting commands, one module per command: ``permissions`` (``axon permissions
[check]``), ``trust`` (``axon trust``, and the "waiting for trust" lines other commands add),
``doctor``, ``undo`` (``axon undo [--list]``), ``mcp`` (``axon mcp list``), ``tools`` (``axon tools``)
``sessions`` (``axon sessions``) and ``init`` (``axon init``). They read the packages below them and never print: the CLI does.
"""
