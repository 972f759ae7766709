"""The agent core: the loop, the model client, tool-call protocols and the nudges for weak replies.

Nothing here prints or reads the keyboard; everything goes out as events (``axon_cli.events``).
"""
