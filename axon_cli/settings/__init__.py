"""What axon is told: config (defaults < user < project < env < flags, with each value's source),
Claude Code settings, ``.mcp.json``, the permission modes' names, and folder trust — the only
reader of project files, handing up data already filtered by trust.
"""
