"""The agent: the model client (``model``), tool-call protocols (``protocols``), the loop and its
"go on?" decision (``loop``), answer guidance for small models (``guidance``), and an agent
built from those parts (``assembly``).
"""
