"""acap.build._build.batch."""
