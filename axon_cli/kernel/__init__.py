"""The ground floor: what every other floor may use and that uses nothing of axon — errors, events
and the Approver, the user's turn, atomic and temporary files, the bounded loaders of untrusted
bytes, text and git safety, Ctrl-C from the first line, leaving without teardown, the version, and
the wording axon sends the model (``kernel/prompts/``).
"""
