"""A session: one conversation over time (``conversation``), the user's extensions — hooks,
commands, skills, sub-agents, Python tools (``extend``), MCP servers as tools (``mcp``), and a
running session built from settings (``runtime``).
"""
