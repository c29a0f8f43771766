"""Text units cut from papers: TA, section, window, chunk, segment; and the paper log."""

from sciembed.views.chunk import chunk_views
from sciembed.views.paper_log import build_paper_log, read_paper_log, write_paper_log
from sciembed.views.segment import segment_views
from sciembed.views.simple import section_view, ta_text, ta_view
from sciembed.views.view import View
from sciembed.views.window import target_words, window_at

__all__ = ["View", "build_paper_log", "chunk_views", "read_paper_log", "section_view", "segment_views", "ta_text",
           "ta_view", "target_words", "window_at", "write_paper_log"]
