"""diagnose package."""
