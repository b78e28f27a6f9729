"""One module per ``acap`` command (as in MkDocs).

Each module defines one click command or group; :mod:`acap.cli._group` loads a
command's module only when that command runs, so ``acap --help`` imports none of them.
"""
