"""Filesystem helpers every stage shares: atomic outputs, locks, writability checks."""
