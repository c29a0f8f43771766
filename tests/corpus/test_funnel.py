"""Every funnel stage on a hand-built graph; the expected counts are worked out in the comments."""

from __future__ import annotations

import hashlib
import json

import pytest

from sciembed.corpus.build import EmptyBuildError, build_corpus
from sciembed.corpus.config import FunnelConfig
from sciembed.corpus.layout import CorpusDir
from sciembed.corpus.report import FunnelInvariantError, FunnelReport, StageCount

# max_degree 3, body >= 100 chars and >= 2 sections, at most 2 pairs per domain, no held-out splits.
CONFIG = FunnelConfig(max_degree=3, min_body_chars=100, min_body_sections=2, domain_cap=2, seed=0,
                      test_size=0, val_size=0)

EDGE_LINES = [  # file line numbers start at 2 (line 1 is the header)
    "a1,a2", "a2,a1", "a1,a2",  # one pair: a reverse duplicate and an exact duplicate
    "a2,a3", "a3,a3", "a3,a4",  # a self-citation
    "b1,b2", "b2,b3", "b1,b3",
    "hub,a1", "hub,a2", "hub,a3", "hub,b1", "hub,leaf",  # hub: 5 pairs > 3; leaf pairs only with hub
    "a4,nv", "b2,nf", "a1,ghost",  # endpoint without venue, without field, unknown
    "short,a4", "short,lone2", "thin,b3",  # endpoints failing the text filter; lone2 only pairs with short
    "x,y,z",  # line 22: malformed
    ",a1",  # line 23: empty id
    "nv,nf",  # both endpoints removed: counted under the earlier stage (venue)
]


@pytest.fixture
def hand_corpus(paper, write_corpus, write_csv):
    papers = [paper(p) for p in ("a1", "a2", "a3", "a4")]
    papers += [paper(p, field="bio") for p in ("b1", "b2", "b3")]
    papers += [
        paper("hub"), paper("leaf"), paper("nv", venue=None), paper("nf", field=None),
        paper("short", body_chars=50), paper("thin", body_chars=200, sections=1), paper("lone2"), paper("lonely"),
        paper("a1", title="A second copy of a1"),  # duplicate id: the first copy wins
        paper("  "),  # empty id
    ]
    return write_corpus(papers), write_csv(EDGE_LINES)


def _cap_key(seed: int, a: str, b: str) -> int:
    """The documented cap order: md5 of "seed:a:b" as a little-endian 128-bit integer."""
    return int.from_bytes(hashlib.md5(f"{seed}:{a}:{b}".encode()).digest(), "little")


def _stage(report: FunnelReport, name: str) -> tuple[int, int, dict, dict]:
    s = report.stage(name)
    return s.papers, s.pairs, s.removed_papers, s.removed_pairs


def test_every_stage_by_hand(hand_corpus, tmp_path):
    corpus, edges = hand_corpus
    result = build_corpus(corpus, tmp_path / "built", CONFIG, [edges])
    r = result.report
    # 17 rows, one duplicate id, one empty id; 23 edge lines, 2 rejected -> 21 raw edges.
    assert _stage(r, "input") == (15, 21, {"duplicate_id": 1, "empty_id": 1}, {"empty_id": 1, "malformed_line": 1})
    assert _stage(r, "venue") == (14, 21, {"missing_venue": 1}, {})
    assert _stage(r, "field") == (13, 21, {"missing_field": 1}, {})
    # a4->nv and nv->nf (venue), b2->nf (field), a1->ghost (dangling); `lonely` has no edge left.
    assert _stage(r, "edges") == (
        12, 17, {"no_pair_left": 1},
        {"dangling_endpoint": 1, "endpoint_missing_field": 1, "endpoint_missing_venue": 2},
    )
    # 17 edges - a3->a3 - second a1->a2 - a2->a1 = 14 pairs.
    assert _stage(r, "dedup") == (12, 14, {}, {"duplicate_edge": 1, "reverse_duplicate": 1, "self_citation": 1})
    # hub is in 5 pairs (> 3): it and its 5 pairs go; leaf paired only with hub.
    assert _stage(r, "degree") == (10, 9, {"high_degree": 1, "no_pair_left": 1}, {"high_degree_endpoint": 5})
    # short (50 chars) and thin (1 section) go with a4-short, lone2-short, b3-thin; lone2 is left alone.
    assert _stage(r, "text") == (
        7, 6, {"few_body_sections": 1, "no_pair_left": 1, "short_body": 1}, {"low_text_quality_endpoint": 3},
    )
    # cs and bio hold 3 pairs each, cap 2: seed 0 drops the largest key of each (see _cap_key): a3-a4 (a4 is
    # left alone) and b1-b2.
    assert _stage(r, "cap") == (6, 4, {"no_pair_left": 1}, {"domain_cap": 2})
    assert _stage(r, "split") == (6, 4, {}, {})
    # Directed citations: one per raw edge until dedup, which keeps a2->a1 (a citation of its own) and drops
    # a3->a3 and the second a1->a2; later stages drop the citations of the pairs they drop, for the same reason.
    assert [(s.name, s.citations) for s in r.stages] == [
        ("input", 21), ("venue", 21), ("field", 21), ("edges", 17), ("dedup", 15), ("degree", 10), ("text", 7),
        ("cap", 5), ("split", 5)]
    assert r.stage("dedup").removed_citations == {"duplicate_edge": 1, "self_citation": 1}
    assert r.stage("degree").removed_citations == {"high_degree_endpoint": 5}
    assert r.stage("cap").removed_citations == {"domain_cap": 2}
    assert result.manifest["edge_files"][0]["malformed_examples"] == [
        f"{edges}:22: TOO MANY COLUMNS: Expected Number of Columns: 2 Found: 3"
    ]

    built = CorpusDir(tmp_path / "built")
    assert max([("a1", "a2"), ("a2", "a3"), ("a3", "a4")], key=lambda p: _cap_key(0, *p)) == ("a3", "a4")
    assert max([("b1", "b2"), ("b1", "b3"), ("b2", "b3")], key=lambda p: _cap_key(0, *p)) == ("b1", "b2")
    assert built.pairs("train") == [("a1", "a2"), ("a2", "a3"), ("b1", "b3"), ("b2", "b3")]
    assert built.citations("train") == [("a1", "a2"), ("a2", "a1"), ("a2", "a3"), ("b1", "b3"), ("b2", "b3")]
    assert built.split_ids("train") == ["a1", "a2", "a3", "b1", "b2", "b3"]
    assert {p.id: p.domain for p in built.iter_papers()} == {
        "a1": "cs", "a2": "cs", "a3": "cs", "b1": "bio", "b2": "bio", "b3": "bio"}
    # Degree histogram after dedup: leaf, lone2, thin in 1 pair; a1, a4, b2, short in 2; a2, a3, b1, b3 in 3;
    # hub in 5.
    assert result.manifest["reject_reasons"]["papers"]["degree/high_degree"] == 1
    funnel = json.loads((tmp_path / "built" / "funnel.json").read_text())
    assert funnel["degree_histogram"] == [[1, 3], [2, 4], [3, 4], [5, 1]]


def test_cap_keeps_smallest_md5_keys_of_the_anchor_domain(paper, write_corpus, write_csv, tmp_path):
    # Cross-domain pairs count for their anchor (first id): a1-b1 and a1-b2 are "cs" pairs.
    papers = [paper("a1"), paper("a2"), paper("a3"), paper("b1", field="bio"), paper("b2", field="bio")]
    edges = [("a1", "a2"), ("a2", "a3"), ("a1", "b1"), ("b2", "a1"), ("b1", "b2")]
    corpus = write_corpus(papers)
    for seed in (0, 1, 7):
        config = FunnelConfig(domain_cap=3, seed=seed, test_size=0, val_size=0, text_filter=False)
        out = tmp_path / f"built{seed}"
        result = build_corpus(corpus, out, config, [write_csv(edges, name=f"e{seed}.csv")])
        cs = [("a1", "a2"), ("a1", "b1"), ("a1", "b2"), ("a2", "a3")]
        kept = sorted(sorted(cs, key=lambda p: _cap_key(seed, *p))[:3])
        # bio holds one pair (b1-b2), under the cap: untouched.
        assert CorpusDir(out).pairs("train") == sorted([*kept, ("b1", "b2")])
        assert result.report.stage("cap").removed_pairs == {"domain_cap": 1}
        assert result.manifest["funnel"][-2]["pairs"] == 4


def test_cap_at_exactly_the_limit_keeps_all(paper, write_corpus, write_csv, tmp_path):
    corpus = write_corpus([paper("a1"), paper("a2"), paper("a3")])
    config = FunnelConfig(domain_cap=2, test_size=0, val_size=0)
    result = build_corpus(corpus, tmp_path / "out", config, [write_csv([("a1", "a2"), ("a2", "a3")])])
    assert result.report.stage("cap").removed_pairs == {}
    assert result.report.stage("cap").pairs == 2


def test_switched_off_stages_remove_nothing(hand_corpus, tmp_path):
    corpus, edges = hand_corpus
    config = FunnelConfig(venue_filter=False, field_filter=False, degree_filter=False, text_filter=False,
                          domain_cap_filter=False, test_size=0, val_size=0)
    result = build_corpus(corpus, tmp_path / "built", config, [edges])
    for name in ("venue", "field", "degree", "text", "cap"):
        stage = result.report.stage(name)
        assert not stage.enabled and stage.removed_papers == {} and stage.removed_pairs == {}
    # Only the dangling edge goes in stage 3; every paper but `lonely` is in a pair; nf's domain is "unknown".
    assert result.report.stage("edges").removed_pairs == {"dangling_endpoint": 1}
    assert result.report.stage("cap").papers == 14
    domains = {p.id: p.domain for p in CorpusDir(tmp_path / "built").iter_papers()}
    assert domains["nf"] == "unknown" and "lonely" not in domains


def test_report_rejects_counts_that_do_not_add_up():
    report = FunnelReport()
    report.add(StageCount("input", "in", True, 10, 20))
    with pytest.raises(FunnelInvariantError, match="stage venue: papers 10 - removed 1 != 8"):
        report.add(StageCount("venue", "venue", True, 8, 20, {"missing_venue": 1}))


def test_a_stage_whose_metadata_no_paper_has_is_skipped_not_emptied(paper, write_corpus, write_csv, tmp_path):
    # Real GROBID output: no paper has a field of study (and here none has a venue either).
    papers = [paper(f"p{i}", field=None, venue=None) for i in range(6)]
    edges = write_csv([(f"p{i}", f"p{i + 1}") for i in range(5)])
    config = FunnelConfig(test_size=0, val_size=0)  # both filters on, as by default
    result = build_corpus(write_corpus(papers), tmp_path / "built", config, [edges])
    for name, what in (("venue", "a venue"), ("field", "a field of study")):
        stage = result.report.stage(name)
        assert stage.enabled and stage.removed_papers == {} and stage.papers == 6
        assert stage.skipped is not None and f"no paper has {what}" in stage.skipped
    assert result.report.stage("split").pairs == 5
    md = (tmp_path / "built" / "funnel.md").read_text()
    assert "| 2 | Field-of-study filter (skipped) | 6 |" in md
    assert "Stage 2 (Field-of-study filter) skipped: no paper has a field of study" in md
    # One paper with a field is enough for the stage to run: the other five go, as the config asks.
    papers[0] = paper("p0", field="cs", venue=None)
    with pytest.raises(EmptyBuildError, match=r"stage 3 \(Valid edges.*left no paper.*endpoint_missing_field 5\); "
                                              r"to keep them: --set field_filter=false"):
        build_corpus(write_corpus(papers, name="one_field"), tmp_path / "b2",
                     FunnelConfig(test_size=0, val_size=0, venue_filter=False), [edges])
