"""The file tools (``read_file``, ``write_file``, ``edit_file``) and their machinery: ``tool`` (the
specs and handlers), ``fileio`` (encodings, line endings, read state, safe writes), ``reading``
(numbered, bounded reads), ``matching`` (finding ``old_string``)."""
