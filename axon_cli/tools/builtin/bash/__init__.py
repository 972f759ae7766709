"""The ``bash`` tool and its machinery: ``tool`` (the spec and handler), ``processes`` (the command's
environment and killing its process tree), ``pump`` (reading the output pipe), ``capture`` and
``spill_writer`` (masked, bounded output spilled to a file), ``notes`` (what a failure adds)."""
