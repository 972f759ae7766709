"""Answer guidance for small models: nudges for weak replies (``nudges``), reminders for answers not
grounded in the turn (``reminders``, ``targets``, ``values``), the one call that makes a task's rename or
move (``moves``), no idle repeats (``repeats``), all
reached by the loop through one object (``guide.Guidance``). Its wording is in ``axon_cli/kernel/prompts/``.

Chosen by the ``guidance`` setting; with it off, nothing in this package is imported.
"""
