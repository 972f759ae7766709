"""Tools: typed specs, the registry, dispatch and output governance."""
