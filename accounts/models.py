"""Models of accounts."""
