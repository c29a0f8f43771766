"""Experiments above evaluation and training: studies and the demo (nothing below imports them)."""
