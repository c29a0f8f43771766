"""sciembed.llm."""
