"""Short summaries of papers for summary-based training (SemCSE) and the semantic benchmark.

Three producers, one file format (JSONL of ``{paper_id, text, source}``): an LLM continuing the
paper's prompt stems (`generate`), a deterministic extractive pseudo-summariser for offline use
(`extractive`, labelled ``extractive-pseudo`` wherever it appears), and human summaries imported
from SciTLDR (`scitldr`).
"""

from sciembed.summaries.records import Summary, SummaryFileError, read_summaries, write_summaries

__all__ = ["Summary", "SummaryFileError", "read_summaries", "write_summaries"]
