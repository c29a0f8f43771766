"""sciembed.training."""
