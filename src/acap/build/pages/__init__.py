"""acap.build._build.pages."""
