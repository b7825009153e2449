"""Slow, plain references that the engine's fast paths are checked against (never imported by
the engine)."""
