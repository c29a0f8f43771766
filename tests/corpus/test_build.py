"""The built corpus honours the layout contract: files, schemas, manifest, and `CorpusDir` access."""

from __future__ import annotations

import dataclasses
import json

import pyarrow.parquet as pq
import pytest

from sciembed.corpus.build import BuildError, EmptyBuildError, build_corpus
from sciembed.corpus.config import FunnelConfig
from sciembed.corpus.layout import SCHEMA_VERSION, CorpusDir, CorpusError
from sciembed.papers.io import PAPER_SCHEMA
from sciembed.papers.model import Paper, Reference


@pytest.fixture
def small(paper, write_corpus, write_csv):
    papers = [paper(f"p{i}", field="bio" if i % 2 else "cs") for i in range(12)]
    papers[3] = dataclasses.replace(papers[3], references=(Reference(paper_id="p4", title="Paper p4"),),
                                    fields_of_study=("  ", "physics"))  # first non-blank field is the domain
    papers[5] = dataclasses.replace(papers[5], fields_of_study=(), domain="geo")  # no field: the reader's domain
    edges = [(f"p{i}", f"p{(i + 1) % 12}") for i in range(12)] + [(f"p{i}", f"p{(i + 5) % 12}") for i in range(12)]
    return write_corpus(papers, synthetic=True), write_csv(edges), {p.id: p for p in papers}


def test_output_layout_and_contract(small, tmp_path):
    corpus, edges, originals = small
    out = tmp_path / "built"
    result = build_corpus(corpus, out, FunnelConfig(test_size=3, val_size=0, seed=4), [edges])  # no room for val
    for name in ("papers.parquet", "pairs.parquet", "citations.parquet", "splits.parquet", "manifest.json",
                 "funnel.json", "funnel.md"):
        assert (out / name).is_file(), name
    for name in ("degree_distribution.png", "domain_pairs.png"):
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (out / ".duckdb_tmp").exists()

    built = CorpusDir(out)
    assert pq.read_schema(built.papers_path).equals(PAPER_SCHEMA)
    papers = built.papers()
    # Full records survive unchanged but for the domain (primary field, else the reader's domain).
    for pid, p in papers.items():
        assert dataclasses.replace(p, domain=None) == dataclasses.replace(originals[pid], domain=None)
    assert papers["p3"].domain == "physics" and papers["p5"].domain == "geo" and papers["p2"].domain == "cs"

    pairs = pq.read_table(built.pairs_path).to_pylist()
    assert set(pq.read_schema(built.pairs_path).names) == {"paper_a", "paper_b", "domain", "split"}
    assert all(r["paper_a"] < r["paper_b"] and r["split"] in ("train", "val", "test") for r in pairs)
    assert all(r["domain"] == papers[r["paper_a"]].domain for r in pairs)  # the anchor's domain
    splits = pq.read_table(built.splits_path).to_pylist()
    assert sorted(r["paper_id"] for r in splits) == sorted(papers)
    assert sum(len(built.split_ids(s)) for s in ("train", "val", "test")) == len(papers)
    assert sum(len(built.pairs(s)) for s in ("train", "val", "test")) == len(pairs)

    manifest = built.manifest()
    assert manifest["schema_version"] == SCHEMA_VERSION and manifest["kind"] == "built"
    assert manifest["synthetic"] is True and manifest["seed"] == 4
    assert manifest["config"]["test_size"] == 3 and manifest["config"]["max_degree"] == 200
    assert manifest["counts"]["papers"] == len(papers) and manifest["counts"]["pairs"] == len(pairs)
    assert manifest["funnel"] == result.report.to_list()
    assert manifest["references"] == {"read": 1, "resolved": {"paper_id": 1}, "unresolved": {}}
    funnel = json.loads((out / "funnel.json").read_text())
    assert funnel["funnel"] == manifest["funnel"] and funnel["splits"] == manifest["splits"]
    md = (out / "funnel.md").read_text()
    assert ("| # | stage | papers | pairs | citations | removed papers | removed pairs | removed citations |" in md
            and "## Splits" in md)


def test_output_directory_rules(small, tmp_path):
    corpus, edges, _ = small
    config = FunnelConfig(test_size=0, val_size=0)
    with pytest.raises(BuildError, match="must differ from the input corpus"):
        build_corpus(corpus, corpus, config, [edges])
    build_corpus(corpus, tmp_path / "out", config, [edges])
    with pytest.raises(BuildError, match=r"already holds papers\.parquet.*overwrite"):
        build_corpus(corpus, tmp_path / "out", config, [edges])
    result = build_corpus(corpus, tmp_path / "out", config, [edges], overwrite=True)
    assert result.report.stage("split").pairs == len(CorpusDir(tmp_path / "out").pairs("train"))


def test_missing_input_is_named(tmp_path):
    with pytest.raises(CorpusError, match=r"missing papers\.parquet"):
        build_corpus(tmp_path, tmp_path / "out", FunnelConfig())


def test_a_corpus_without_edges_is_refused_not_built_empty(paper, write_corpus, tmp_path):
    corpus = write_corpus([paper("a"), Paper(id="b", title="B")])
    with pytest.raises(EmptyBuildError, match=r"funnel stage 0 \(Input\) left no citation pair.*no citation links"):
        build_corpus(corpus, tmp_path / "out", FunnelConfig(test_size=0, val_size=0))
    assert not (tmp_path / "out").exists()
