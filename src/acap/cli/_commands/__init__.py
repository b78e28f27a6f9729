"""acap.cli._group._commands."""
