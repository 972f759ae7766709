"""The search tools (``list_files``, ``search_files``) and their machinery: ``tool`` (the specs and
handlers), ``ripgrep`` (the ripgrep backend and its pure-Python fallback), ``walk`` (.gitignore-aware
file walk), ``notes`` (what a search adds beside its matches)."""
