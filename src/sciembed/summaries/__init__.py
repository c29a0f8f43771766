"""Short summaries of papers for summary-based training (SemCSE) and the semantic benchmark: written by an LLM
(`generate`), the offline extractive pseudo-summariser (`extractive`) or imported (`scitldr`, `semcse_release`),
all in one file format (`records`)."""

from sciembed.summaries.records import Summary, SummaryFileError, read_summaries, write_summaries

__all__ = ["Summary", "SummaryFileError", "read_summaries", "write_summaries"]
