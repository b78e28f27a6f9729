"""acap.load."""
