"""acap.checks._run."""
