"""The section-pair source on an *ingested* corpus (papers.parquet only, no citation graph): funnel,
decontamination, task drawing, and the SciJEPA selector fixes."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from sciembed.papers.headings import malformed_heading
from sciembed.papers.io import write_parquet
from sciembed.papers.model import ExternalIds, Paper, Section, SectionRole
from sciembed.papers.roles import conclusion_section_index, method_section_index
from sciembed.training.config import SectionFilterConfig
from sciembed.training.sources import SourceError, draw_examples, load_section_pairs
from sciembed.training.sources.exclude import ExcludeError
from sciembed.training.sources.section_pairs import REASONS, SectionPairTexts, task_shares

from .conftest import COMMON, topic_words

FULL = (("introduction", "introduction"), ("method", "method"), ("results", "results"), ("conclusion", "conclusion"))


def words(rng: random.Random, topic: int, n: int) -> str:
    own = topic_words(topic)
    return " ".join(rng.choice(own) if rng.random() < 0.6 else rng.choice(COMMON) for _ in range(n))


def section(heading: str, text: str) -> Section:
    return Section(heading=heading, text=text, role=SectionRole.OTHER)


def section_papers(n: int = 24, seed: int = 0) -> list[Paper]:
    """`n` good papers (4 sections of ~70 words) plus one paper per funnel reason."""
    rng = random.Random(seed)
    papers = []
    for i in range(n):
        topic = i % 6
        headings = FULL if i % 4 else (("introduction", ""), ("background", ""), ("method", ""))  # no conclusion
        papers.append(Paper(
            id=f"s{i:03d}", title=words(rng, topic, 5), abstract=words(rng, topic, 25),
            sections=tuple(section(h, words(rng, topic, 100)) for h, _ in headings),
            external_ids=ExternalIds(doi=f"10.1000/s{i:03d}", arxiv=f"2101.{i:05d}"),
        ))
    body = tuple(section(h, words(rng, 0, 100)) for h, _ in FULL)
    papers += [
        Paper(id="bad-abstract", title="t0w1", abstract="c1 c2", sections=body),
        Paper(id="bad-few", title="t0w2", abstract=words(rng, 0, 25), sections=body[:2]),
        Paper(id="bad-many", title="t0w3", abstract=words(rng, 0, 25), sections=body * 21),
        Paper(id="bad-short", title="t0w4", abstract=words(rng, 0, 25),
              sections=tuple(section(h, "c1 c2 c3") for h, _ in FULL)),
        Paper(id="bad-headings", title="t0w5", abstract=words(rng, 0, 25), sections=(
            section("it follows that x", body[0].text), section("a. b. c. d. e.", body[1].text),
            section("method", body[2].text))),
        Paper(id="bad-method", title="t0w6", abstract=words(rng, 0, 25), sections=(
            section("alpha", words(rng, 0, 300)), section("beta", "c1"), section("gamma", "c2"))),
    ]
    return papers


def write_ingested(root: Path, papers: list[Paper]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    write_parquet(papers, root / "papers.parquet")
    (root / "manifest.json").write_text(json.dumps({"schema_version": 1, "papers": len(papers)}))
    return root


@pytest.fixture(scope="module")
def ingested(tmp_path_factory) -> Path:
    return write_ingested(tmp_path_factory.mktemp("ingested"), section_papers())


def test_funnel_counts_every_paper_once(ingested):
    data = load_section_pairs(ingested, SectionFilterConfig())
    f = data.funnel
    assert f["read"] == 30 and f["kept"] == 24
    assert f["read"] == f["kept"] + sum(f[r] for r in REASONS)
    assert {r: f[r] for r in REASONS if f[r]} == {
        "short_abstract": 1, "too_few_sections": 1, "too_many_sections": 1, "short_body": 1,
        "malformed_headings": 1, "no_method": 1,
    }
    assert data.split == "all"  # an ingested corpus: no splits needed
    assert data.with_conclusion == 18  # every 4th good paper has none
    assert all(data.conclusion[i] == -1 for i, p in enumerate(data.papers) if int(p.id[1:]) % 4 == 0)


def test_decontamination_by_id_doi_arxiv_and_title(ingested, tmp_path):
    papers = {p.id: p for p in section_papers()}
    listed = tmp_path / "exclude.txt"
    listed.write_text(
        "# held-out papers\ns000\nhttps://doi.org/10.1000/S001\narXiv:2101.00002v3\n\n"
        + papers["s003"].title.upper() + "!\n"
    )
    data = load_section_pairs(ingested, SectionFilterConfig(), [listed])
    assert data.funnel["excluded"] == 4 and data.funnel["kept"] == 20
    assert not {"s000", "s001", "s002", "s003"} & {p.id for p in data.papers}
    assert data.summary()["exclude_sources"] == [{"path": str(listed), "values": 4}]
    # a corpus folder excludes every paper in it
    other = write_ingested(tmp_path / "other", [papers["s005"], papers["s006"]])
    assert load_section_pairs(ingested, SectionFilterConfig(), [other]).funnel["excluded"] == 2
    # a BEIR folder: corpus ids and titles
    beir = tmp_path / "beir"
    beir.mkdir()
    (beir / "corpus.jsonl").write_text(json.dumps({"_id": "s007", "title": "x", "text": "y"}) + "\n")
    assert load_section_pairs(ingested, SectionFilterConfig(), [beir]).funnel["excluded"] == 1
    with pytest.raises(ExcludeError, match="not found"):
        load_section_pairs(ingested, SectionFilterConfig(), [tmp_path / "missing.txt"])
    (beir / "corpus.jsonl").write_text("{broken\n")
    with pytest.raises(ExcludeError, match=r"corpus.jsonl:1: not valid JSON"):
        load_section_pairs(ingested, SectionFilterConfig(), [beir])


def test_tasks_are_drawn_uniformly_from_what_each_paper_has(ingested):
    data = load_section_pairs(ingested, SectionFilterConfig())
    paper, task = draw_examples(data, 20_000, seed=0)
    assert np.array_equal(paper, draw_examples(data, 20_000, seed=0)[0])  # seeded
    assert (task[data.conclusion[paper] < 0] == 0).all()  # no conclusion: only TA → method
    shares = task_shares(task)
    # 3/4 of papers offer both tasks: TA → method 1/4 + 3/4 · 1/2 = 62.5%
    assert shares["ta_to_method"] == pytest.approx(0.625, abs=0.01)
    texts = SectionPairTexts(data)
    i = int(np.flatnonzero(data.conclusion >= 0)[0])
    context, target = texts(i, 0)
    assert context.startswith(data.papers[i].title) and target.startswith("method")
    context, target = texts(i, 1)
    assert context.startswith("method") and target.startswith("results")  # the first outcome heading


def test_no_paper_left_is_one_clear_error(tmp_path):
    papers = [p for p in section_papers() if p.id.startswith("bad-")]
    root = write_ingested(tmp_path / "bad", [p for p in papers if p.id != "bad-method"])
    with pytest.raises(SourceError, match=r"no paper passes the section-pair filters \(5 read; removed: short_"):
        load_section_pairs(root, SectionFilterConfig())
    no_method = write_ingested(tmp_path / "nomethod", papers)
    with pytest.raises(SourceError, match=r"none of the 1 papers that pass the filters has a method section \(of 6"):
        load_section_pairs(no_method, SectionFilterConfig())


def test_malformed_headings():
    assert malformed_heading("x" * 121) and malformed_heading("1. 2. 3. 4. 5.")
    assert malformed_heading("We have that the bound holds") and malformed_heading("if and only if")
    assert not malformed_heading("3.2.1 Experimental Setup") and not malformed_heading("Conclusion")


def _paper(*headings: str) -> Paper:
    return Paper(id="x", title="t", sections=tuple(section(h, f"{h} " + "word " * 30) for h in headings))


def test_method_fallback_anchors_on_an_introduction_heading():
    # "Motivation" has the introduction role but is not an introduction heading: no anchor there
    assert method_section_index(_paper("Motivation", "Alpha", "Beta", "Gamma")) == 1  # second substantial
    assert method_section_index(_paper("Overview", "Introduction", "Alpha", "Beta")) == 2
    assert method_section_index(_paper("Preliminaries", "Alpha", "Beta")) == 1


def test_first_outcome_heading_after_the_method_wins():
    p = _paper("Introduction", "Method", "Results", "Discussion", "Conclusion")
    assert conclusion_section_index(p) == 2
    assert conclusion_section_index(_paper("Introduction", "Method", "Alpha", "Conclusion")) == 3
    assert conclusion_section_index(_paper("Introduction", "Method", "Alpha", "Beta")) == 3  # last substantial


SCIENCE_PARSE = (Path(__file__).resolve().parents[2] / "../shared/data/formats/science-parse"
                 / "peerread_iclr_2017_train_304.pdf.json")


@pytest.mark.skipif(not SCIENCE_PARSE.is_file(), reason="shared real data not mounted")
def test_filters_count_the_raw_sections_the_reader_recorded(tmp_path):
    """SciJEPA filters on the parse's own sections: a real science-parse paper has 30 raw sections and 10 after
    sciembed's normalisation; max_sections=20 rejects it on the raw ones (the paper's), keeps it on the
    normalised ones; the counts survive papers.parquet and sciembed's JSONL; a paper without them (synthetic)
    falls back to the normalised sections, counted."""
    from sciembed.papers.io import read_parquet, write_jsonl
    from sciembed.papers.model import RawSections
    from sciembed.papers.readers import read_papers

    (real,) = [r.paper for r in read_papers(SCIENCE_PARSE)]
    assert real.raw_sections == RawSections(30, 57212, 0) and len(real.sections) == 10
    synthetic = section_papers(1)[0]
    root = write_ingested(tmp_path / "c", [real, synthetic])
    assert [p.raw_sections for p in read_parquet(root / "papers.parquet")] == [real.raw_sections, None]
    write_jsonl([real], tmp_path / "own.jsonl")
    assert [r.paper.raw_sections for r in read_papers(tmp_path / "own.jsonl")] == [real.raw_sections]
    raw = load_section_pairs(root, SectionFilterConfig(max_sections=20))
    assert raw.funnel["too_many_sections"] == 1 and [p.id for p in raw.papers] == [synthetic.id]
    assert raw.summary()["section_filters_on"] == {"raw_sections": 1, "normalised_sections": 1}
    normalised = load_section_pairs(root, SectionFilterConfig(max_sections=20, sections="normalised"))
    assert normalised.funnel["too_many_sections"] == 0
    assert normalised.summary()["section_filters_on"] == {"raw_sections": 0, "normalised_sections": 2}
