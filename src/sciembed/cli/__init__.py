"""sciembed.cli."""
