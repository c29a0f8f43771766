"""What a recipe learns from. The citation-pair source is `sciembed.training.data` (built corpora);
`section_pairs` needs only an ingested corpus (no citation graph)."""

from sciembed.training.sources.section_pairs import SourceError, draw_examples, load_section_pairs

__all__ = ["SourceError", "draw_examples", "load_section_pairs"]
