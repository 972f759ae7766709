"""The machinery under the tools: the sandbox and the one gate for what runs outside it
(``sandbox``), undo (``snapshots``), secret masking (``masking``), pictures (``media``).
"""
