"""acap.publish._publish."""
