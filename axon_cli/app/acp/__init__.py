"""``axon acp``: axon as an Agent Client Protocol agent over stdio (editors such as Zed drive it).

A third frontend on the core's event stream and approver, beside ``axon chat`` and ``axon run``:
``server.py`` (the ACP Agent and the stdio connection), ``runner.py`` (turns on the main thread, cancel
as Ctrl-C), ``session.py`` (one session's runtime), ``updates.py`` (events → ``session/update``),
``history.py`` (a loaded transcript replayed), ``approver.py`` (``session/request_permission``),
``prompt.py`` (prompt blocks → the user's turn) and ``fs.py`` (the client's ``fs`` methods as the file
tools' buffers). The SDK (``agent-client-protocol``) is imported only here.
"""
