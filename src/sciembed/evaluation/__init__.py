"""sciembed.evaluation."""
