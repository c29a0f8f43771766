"""Directed citations (citing, cited) of an *ingested* corpus, over all its papers: `resolve_references` as
`corpus build` runs it, without the funnel and splits (a paper-to-paper benchmark needs every citation)."""

from __future__ import annotations

import tempfile
from pathlib import Path

from sciembed.corpus.engine import connect
from sciembed.corpus.papers_table import load_papers
from sciembed.corpus.resolve import ReferenceStats, resolve_references


def directed_citations(papers_path: str | Path, threads: int = 1,
                       memory_limit: str = "1GB") -> tuple[list[tuple[str, str]], ReferenceStats]:
    """Sorted distinct (citing id, cited id) pairs without self-citations, and the resolution counts."""
    with tempfile.TemporaryDirectory(prefix="sciembed-cites-") as tmp, \
            connect(threads, memory_limit, Path(tmp)) as con:
        load_papers(con, Path(papers_path))
        con.execute("CREATE TEMP TABLE raw_edges (src INTEGER, citing BIGINT, cited BIGINT)")
        stats = resolve_references(con, Path(papers_path))
        rows = con.execute("""SELECT DISTINCT a.id, b.id FROM raw_edges e
                              JOIN papers a ON a.pk = e.citing JOIN papers b ON b.pk = e.cited
                              WHERE a.id <> b.id ORDER BY 1, 2""").fetchall()
    return [(str(a), str(b)) for a, b in rows], stats
