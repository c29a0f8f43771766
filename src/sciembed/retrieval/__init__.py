"""sciembed.retrieval."""
