"""What a recipe learns from. The citation-pair source is `sciembed.training.data` (built corpora);
`section_pairs` needs only an ingested corpus (no citation graph)."""

from sciembed.training.sources.exclude import ExcludeKeys, load_exclude_keys
from sciembed.training.sources.section_pairs import (
    TASKS,
    SectionPairData,
    SectionPairTexts,
    SourceError,
    draw_examples,
    load_section_pairs,
)

__all__ = [
    "TASKS",
    "ExcludeKeys",
    "SectionPairData",
    "SectionPairTexts",
    "SourceError",
    "draw_examples",
    "load_exclude_keys",
    "load_section_pairs",
]
