"""acap.keys._key."""
