"""The shell analysis: what a bash command line runs, reads, changes and reaches, as pure facts.

``analyze`` (``analyze.py``) is the entry point; the decision made from its facts is in
``policy/shell_decide.py``.
"""
