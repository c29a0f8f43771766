"""sciembed.papers.readers."""
