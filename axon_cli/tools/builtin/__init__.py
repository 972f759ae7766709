"""Built-in tools. Each module defines ``TOOLS: list[ToolSpec]``; the registry discovers them."""
