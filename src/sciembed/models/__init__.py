"""sciembed.models."""
