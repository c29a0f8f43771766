"""sciembed.corpus."""
