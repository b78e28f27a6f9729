"""acap.build._build.specsite."""
