"""The agent loop: one user turn from the task to the answer (``agent``), its seams to the session
and the user's hooks (``callbacks``) and to the answer guidance (``guide``), and how a turn ended
(``results``).

Nothing here prints or reads the keyboard; everything goes out as events (``axon_cli.kernel.events``).
"""
