"""align package."""
