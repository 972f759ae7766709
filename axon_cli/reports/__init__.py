"""The text of axon's reporting commands, one module per command: ``permissions`` (``axon permissions
[check]``), ``trust`` (``axon trust``, and the "waiting for trust" lines other commands add),
``doctor``, ``undo`` (``axon undo [--list]``), ``mcp`` (``axon mcp list``), ``tools`` (``axon tools``)
and ``sessions`` (``axon sessions``). They read the packages below them and never print: the CLI does.
"""
