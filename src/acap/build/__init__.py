"""acap.build._build."""
