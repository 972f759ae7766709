"""Running axon in fleets: the Harbor agent adapter (``harbor_agent.py``, imported only by Harbor) and
the plain command builders it uses (``harbor_commands.py``). The CLI never imports this package."""
