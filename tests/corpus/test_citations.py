"""Directed citations: `citations.parquet` follows the references' direction, its funnel adds up, splits."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest

from sciembed.corpus.build import build_corpus
from sciembed.corpus.config import FunnelConfig
from sciembed.corpus.layout import SPLITS, CorpusDir, CorpusError
from sciembed.papers.ingest import ingest
from sciembed.synth.write import write_synthetic


@pytest.fixture(scope="module")
def synthetic_built(tmp_path_factory):
    """80 synthetic papers, ingested, built from their own references (no edge file)."""
    root = tmp_path_factory.mktemp("synthcit")
    write_synthetic(root / "synth", 80, seed=3)
    ingest([root / "synth" / "papers.jsonl.gz"], root / "ingested", progress=False)
    result = build_corpus(root / "ingested", root / "built",
                          FunnelConfig(test_size=0.2, val_size=0.1, min_body_chars=500, seed=1))
    return root, result


def test_directions_agree_with_the_references_of_the_ingested_papers(synthetic_built):
    root, _ = synthetic_built
    ingested = CorpusDir(root / "ingested").papers()
    by_s2 = {p.external_ids.s2: p.id for p in ingested.values() if p.external_ids.s2}
    # What each ingested paper's references say it cites (synthetic references carry the S2 id).
    cites = {(p.id, by_s2[r.external_ids.s2]) for p in ingested.values() for r in p.references
             if r.external_ids.s2 in by_s2 and by_s2[r.external_ids.s2] != p.id}
    built = CorpusDir(root / "built")
    citations = built.citations()
    assert citations and citations == sorted(set(citations))
    assert set(citations) <= cites  # never a reversed or invented edge
    # ... and every reference between two papers of one split is there, in its direction.
    split_of = {pid: s for s in SPLITS for pid in built.split_ids(s)}
    expected = {(a, b) for a, b in cites if a in split_of and b in split_of and split_of[a] == split_of[b]}
    assert set(citations) == expected
    mutual = {(a, b) for a, b in citations if (b, a) in set(citations)}
    # Every citation lies behind one undirected pair; a mutual citation is one pair and two citations.
    pairs = {pair for s in SPLITS for pair in built.pairs(s)}
    assert {(min(a, b), max(a, b)) for a, b in citations} == pairs
    assert len(citations) == len(pairs) + len(mutual) // 2


def test_split_means_the_split_both_papers_share(synthetic_built):
    root, result = synthetic_built
    built = CorpusDir(root / "built")
    split_of = {pid: s for s in SPLITS for pid in built.split_ids(s)}
    per_split = {s: built.citations(s) for s in SPLITS}
    for s, edges in per_split.items():
        assert all(split_of[a] == s and split_of[b] == s for a, b in edges)
    assert sorted(e for edges in per_split.values() for e in edges) == built.citations()
    rows = pq.read_table(built.citations_path).to_pylist()
    assert pq.read_schema(built.citations_path).names == ["citing", "cited", "split"]
    assert [(r["citing"], r["cited"]) for r in rows] == built.citations()  # written sorted
    # The funnel accounts for every directed edge: cross-split ones are counted, not lost.
    manifest = result.manifest
    stage = result.report.stage("split")
    assert stage.citations == len(rows) == manifest["counts"]["citations"]
    assert stage.removed_citations.get("cross_split", 0) == manifest["splits"]["cross_split_citations"] > 0
    assert manifest["counts"]["citations_by_split"] == {s: len(e) for s, e in per_split.items()}
    first = result.report.stages[0]
    assert first.citations == first.pairs  # before dedup, every edge is one citation
    assert "removed citations" in (root / "built" / "funnel.md").read_text()


def test_citations_access_errors(synthetic_built, tmp_path):
    root, _ = synthetic_built
    with pytest.raises(CorpusError, match="unknown split 'dev'"):
        CorpusDir(root / "built").citations("dev")
    with pytest.raises(CorpusError, match=r"no citations\.parquet.*sciembed corpus build"):
        CorpusDir(root / "ingested").citations()
