"""acap.site._files."""
