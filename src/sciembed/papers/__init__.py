"""sciembed.papers."""
