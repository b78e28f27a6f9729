"""acap.cli._group."""
