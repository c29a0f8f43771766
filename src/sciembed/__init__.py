"""sciembed: full-text scientific paper embeddings and paper-to-paper retrieval."""

__version__ = "0.1.0"
