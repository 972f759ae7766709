"""Frontends: the REPL and the headless outputs, all consumers of the core's events."""
