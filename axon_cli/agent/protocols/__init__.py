"""How tools reach the model and calls come back: the protocol interface (``interface``), the
built-in protocols (``builtin``), calls written as text (``textcalls``, ``callshapes``,
``pyliteral``), the text tool prompt (``toolprompt``) and the order text calls run in (``callorder``).
"""
