"""Issue 31 item 5: proceedings front matter rejected as `front_matter`; GROBID's line-end hyphens joined."""

from __future__ import annotations

from fakes.tei import tei
from sciembed.papers.dehyphen import counting, join_paper_hyphens
from sciembed.papers.model import Section
from sciembed.papers.readers import Accepted, Rejection, read_papers


def test_front_matter_is_rejected_with_its_reason(tmp_path):
    toc = " ".join(f"Paper title number {i} on parsing" for i in range(20))  # a table of contents as a title
    (tmp_path / "proc.tei.xml").write_text(tei(toc))
    (tmp_path / "P18-4000.tei.xml").write_text(tei("SANTO: A Web-based Annotation Tool"))
    (tmp_path / "W17-5400.tei.xml").write_text(tei("Proceedings of the Workshop"))
    (tmp_path / "pref.tei.xml").write_text(tei("Preface by the General Chair"))
    (tmp_path / "P18-4001.tei.xml").write_text(tei("SANTO: A Web-based Annotation Tool"))
    records = {p.name: list(read_papers(p)) for p in sorted(tmp_path.iterdir())}
    rejected = {name: r[0] for name, r in records.items() if isinstance(r[0], Rejection)}
    assert sorted(rejected) == ["P18-4000.tei.xml", "W17-5400.tei.xml", "pref.tei.xml", "proc.tei.xml"]
    assert {r.reason for r in rejected.values()} == {"front_matter"}
    assert "character title" in rejected["proc.tei.xml"].message
    assert "paper 0 of its volume" in rejected["P18-4000.tei.xml"].message
    assert isinstance(records["P18-4001.tei.xml"][0], Accepted)


def test_real_front_matter_is_rejected(shared_data):
    folder = shared_data / "acl-grobid" / "tei"
    for stem in ("P15-2000", "D15-1000", "D17-2000"):  # 4,940-character title; committees; untitled
        (record,) = read_papers(folder / f"{stem}.tei.xml.gz")
        assert isinstance(record, Rejection) and record.reason == "front_matter", stem


def test_hyphens_are_joined_and_compounds_kept():
    abstract = "A represen- tation that is state-of-the- art, with pre- trained and pre- and post-training."
    sections = [Section("1", "Our representation beats a pre-trained one; task- specific en- sembles, "
                             "x- axis, BERT- Large and 50- dimensional vectors. The task is specific.")]
    with counting() as counts:
        fixed, (section,) = join_paper_hyphens(abstract, sections)
    assert fixed == ("A representation that is state-of-the-art, with pre-trained and pre- and post-training.")
    assert section.text == ("Our representation beats a pre-trained one; task-specific ensembles, x-axis, "
                            "BERT- Large and 50- dimensional vectors. The task is specific.")
    assert counts == {"join": 2, "hyphen": 4, "left": 1}


def test_real_tei_hyphens(shared_data):
    (record,) = read_papers(shared_data / "acl-grobid" / "tei" / "P16-1101.tei.xml.gz")
    text = record.paper.abstract + " " + record.paper.body_text
    for broken in ("recogni- tion", "represen- tations", "Condi- tional", "tag- gers", "Fig- ure"):
        assert broken not in text
    for word in ("recognition", "representations", "Conditional", "taggers"):
        assert word in text
    for compound in ("part-of-speech", "task-specific", "end-to-end", "state-of-the-art", "character-level"):
        assert compound in text, compound


def test_strong_heads_and_closed_compounds():
    fixed, _ = join_paper_hyphens("A fine- grained, rule- based tagger for in- domain text, out- side the lab.", [])
    assert fixed == "A fine-grained, rule-based tagger for in-domain text, outside the lab."
