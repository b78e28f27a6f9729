"""One module per ``acap`` command (as in MkDocs); each imports the library lazily.

Each module defines one click command or group; :mod:`acap.cli._group` adds them.
"""
