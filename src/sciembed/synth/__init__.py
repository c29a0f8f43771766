"""sciembed.synth."""
