"""Issue 31, item 5: authors (with affiliations) from TEI, JATS, S2ORC and JSONL; the venue's short name."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.papers.io import PAPER_SCHEMA, SCHEMA_VERSION, read_parquet, write_parquet
from sciembed.papers.model import Author, Paper
from sciembed.papers.readers import read_papers
from sciembed.papers.venues import from_anthology_id, from_text, short_venue


def only_paper(path):
    (record,) = list(read_papers(path))
    return record.paper


def test_tei_authors_and_affiliations(shared_data):
    acl = only_paper(shared_data / "formats" / "grobid-tei" / "2020.acl-main.207.tei.xml")
    assert [a.name for a in acl.authors][:3] == ["Arman Cohan", "Sergey Feldman", "Iz Beltagy"]
    assert "University of Washington" in acl.authors[0].affiliation
    assert acl.venue_short == "ACL"  # the file's ACL Anthology id
    naacl = only_paper(shared_data / "formats" / "grobid-tei" / "N18-3011.tei.xml")
    assert len(naacl.authors) == 23 and naacl.authors[0].name == "Waleed Ammar" and naacl.venue_short == "NAACL"


def test_real_acl_tei_venue_from_the_header_or_the_file_name(shared_data):
    emnlp = only_paper(shared_data / "acl-grobid" / "tei" / "D14-1003.tei.xml.gz")
    assert emnlp.venue_short == "EMNLP" and "Empirical Methods" in emnlp.venue  # the raw text is kept
    assert [a.name for a in emnlp.authors] == ["Martin Sundermeyer", "Tamer Alkhouli", "Joern Wuebker", "Hermann Ney"]
    assert emnlp.authors[3].affiliation == "RWTH Aachen University; Univ. Paris-Sud; LIMSI/CNRS"
    revised = only_paper(shared_data / "acl-grobid" / "tei" / "P16-1200v2.1.tei.xml.gz")
    assert revised.venue_short == "ACL"


def test_jats_authors_with_linked_affiliations(shared_data):
    elife = only_paper(shared_data / "formats" / "jats" / "elife06003.xml")
    assert elife.authors[0] == Author("Jessica R Hughes", "School of Medicine, University of Wollongong; Illawarra "
                                                          "Health and Medical Research Institute, University of "
                                                          "Wollongong")
    assert len(elife.authors) == 6  # editors are not authors
    plos = only_paper(shared_data / "formats" / "jats" / "pntd.0002065.nxml")
    assert plos.authors[0].name == "José Fafetine" and "Eduardo Mondlane University" in plos.authors[0].affiliation


def test_s2orc_authors(shared_data):
    release = only_paper(shared_data / "formats" / "s2orc" / "s2orc_20190928_10002293.json")
    assert release.authors[0] == Author("Patrícia Diogo") and len(release.authors) == 11
    assert any(a.name == "Isabel M. Miranda" for a in release.authors)  # middle names kept
    doc2json = only_paper(shared_data / "formats" / "s2orc" / "N18-3011.json")
    assert len(doc2json.authors) == 23 and doc2json.venue_short == "NAACL"


def test_jsonl_authors_in_every_shape_and_an_odd_one_never_rejects(tmp_path):
    records = [
        {"id": "a", "title": "T", "authors": ["Ada Lovelace", "Alan Turing"]},
        {"id": "b", "title": "T", "authors": [{"name": "Grace Hopper", "affiliations": ["Yale", "Navy"]}]},
        {"id": "c", "title": "T", "authors": [{"first": "Karen", "middle": ["S."], "last": "Jones"}]},
        {"id": "d", "title": "T", "authors": "Someone and Someone Else"},  # a shape no reader knows
        {"id": "e", "title": "T", "authors": [{"name": "Bad \ud800 name"}, "Good Name"]},
    ]
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    papers = {r.paper.id: r.paper for r in read_papers(path, fmt="jsonl")}
    assert sorted(papers) == ["a", "b", "c", "d", "e"]  # all accepted, as before authors were read
    assert [a.name for a in papers["a"].authors] == ["Ada Lovelace", "Alan Turing"]
    assert papers["b"].authors == (Author("Grace Hopper", "Yale; Navy"),)
    assert papers["c"].authors == (Author("Karen S. Jones"),)
    assert papers["d"].authors == () and "unknown_keys" in papers["d"].flags
    assert papers["e"].authors == (Author("Good Name"),)  # an unstorable name is left out, not the paper


@pytest.mark.parametrize(("text", "short"), [
    ("Proceedings of the 2014 Conference on Empirical Methods in Natural Language Processing (EMNLP)", "EMNLP"),
    ("Proceedings of the 55th Annual Meeting of the Association for Computational Linguistics", "ACL"),
    ("Proceedings of the 53rd Annual Meeting of the Association for Computational Linguistics and the 7th "
     "International Joint Conference on Natural Language Processing", "ACL"),
    ("Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the 9th "
     "International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)", "EMNLP"),
    ("Proceedings of NAACL-HLT 2018", "NAACL"),
    ("Findings of the Association for Computational Linguistics: EMNLP 2020", "Findings of EMNLP"),
    ("Transactions of the Association for Computational Linguistics", "TACL"),
    ("Proceedings of the Second Workshop on Statistical Machine Translation", "WMT"),
    ("Proceedings of the Workshop on Noisy User-generated Text at EMNLP 2017", None),  # a workshop is no EMNLP
    ("Natural Language Processing", None),
    ("Association for Computational Linguistics", None),  # the publisher names no proceedings
    ("arXiv", "arXiv"),
])
def test_short_names_from_venue_text(text, short):
    assert from_text(text) == short


@pytest.mark.parametrize(("value", "short"), [
    ("D14-1030", "EMNLP"), ("P17-2090", "ACL"), ("N18-3011", "NAACL"), ("D14-1096v2", "EMNLP"), ("W17-4401", None),
    ("2020.acl-main.207", "ACL"), ("2020.findings-emnlp.12", "Findings of EMNLP"), ("2022.coling-1.5", "COLING"),
    ("2020.nlpcovid19-acl.1", None), ("10.18653/v1/p17-2090", None),
])
def test_short_names_from_anthology_ids(value, short):
    assert from_anthology_id(value) == short


def test_the_anthology_id_wins_over_the_text():
    assert short_venue(["Natural Language Processing"], ["D17-1001"]) == "EMNLP"
    assert short_venue(["Proceedings of ACL 2017"], [None, "my-paper"]) == "ACL"


def test_a_schema_1_corpus_still_reads(tmp_path):
    """papers.parquet written before authors and venue_short (schema 1): its papers read with neither."""
    assert SCHEMA_VERSION == 2
    old_schema = pa.schema([f for f in PAPER_SCHEMA if f.name not in ("authors", "venue_short")])
    write_parquet([Paper(id="x", title="Old", venue="EMNLP 2017")], tmp_path / "new.parquet")
    table = pq.read_table(tmp_path / "new.parquet").select(old_schema.names)
    pq.write_table(table, tmp_path / "old.parquet")
    (paper,) = read_parquet(tmp_path / "old.parquet")
    assert paper.id == "x" and paper.authors == () and paper.venue_short is None and paper.venue == "EMNLP 2017"


def test_inspect_shows_authors_and_the_short_venue(shared_data, tmp_path):
    out = tmp_path / "corpus"
    runner = CliRunner(env={"COLUMNS": "200"})
    ingested = runner.invoke(app, ["corpus", "ingest", str(shared_data / "formats" / "grobid-tei"), "--out", str(out),
                                   "--no-progress"])
    assert ingested.exit_code == 0, ingested.output
    shown = runner.invoke(app, ["corpus", "inspect", str(out), "--paper", "N18-3011"])
    assert shown.exit_code == 0, shown.output
    assert "(NAACL)" in shown.output and "author 1: Waleed Ammar" in shown.output and "author 23:" in shown.output
