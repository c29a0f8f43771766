from dataclasses import replace

from sciembed.papers.io import read_jsonl, read_parquet, write_jsonl, write_parquet
from sciembed.papers.model import ExternalIds, Paper, Reference, Section, SectionRole


def _papers() -> list[Paper]:
    full = Paper(
        id="p1",
        title="Résumé of graph networks",
        abstract="We study graphs.\nTwo lines.",
        sections=(
            Section("1 Introduction", "Graphs are everywhere.", SectionRole.INTRODUCTION, "1"),
            Section("2 Method", "We propose X.", SectionRole.METHOD, None),
        ),
        references=(
            Reference(title="Old work", paper_id="p2", year=1999, raw="A. B. Old work. 1999.",
                      external_ids=ExternalIds(doi="10.1/x", arxiv="1234.5678")),
            Reference(raw="unparsed reference"),
        ),
        venue="NeurIPS",
        year=2020,
        domain="Computer Science",
        fields_of_study=("Computer Science", "Mathematics"),
        external_ids=ExternalIds(s2="123", pmid="456"),
        flags=("empty_abstract",),
        source="s2orc:file.json",
    )
    bare = Paper(id="p2", title="Only a title")
    return [full, bare]


def test_jsonl_round_trip_is_lossless(tmp_path):
    papers = _papers()
    path = tmp_path / "papers.jsonl.gz"
    assert write_jsonl(papers, path) == 2
    assert list(read_jsonl(path)) == papers


def test_parquet_round_trip_is_lossless(tmp_path):
    papers = _papers()
    path = tmp_path / "papers.parquet"
    assert write_parquet(papers, path) == 2
    assert list(read_parquet(path)) == papers


def test_paper_is_immutable_and_flags_are_deduplicated():
    paper = _papers()[1]
    flagged = paper.with_flags("no_body", "no_body")
    assert flagged.flags == ("no_body",)
    assert paper.flags == ()
    assert not flagged.has_body
    assert replace(paper, title="x").title == "x"


def test_one_manifest_writer_stamps_version_and_checks_counts(tmp_path) -> None:
    import json

    import pytest

    from sciembed import __version__
    from sciembed.papers.io import MANIFEST_FILE, SCHEMA_VERSION, write_manifest

    written = write_manifest(tmp_path, "ingested", {"counts": {"read": 3, "accepted": 2, "rejected": 1}})
    on_disk = json.loads((tmp_path / MANIFEST_FILE).read_text())
    assert on_disk == written
    assert list(on_disk)[:3] == ["schema_version", "kind", "sciembed_version"]
    assert (on_disk["schema_version"], on_disk["kind"], on_disk["sciembed_version"]) == (SCHEMA_VERSION, "ingested",
                                                                                         __version__)
    with pytest.raises(ValueError, match="do not add up"):
        write_manifest(tmp_path, "ingested", {"counts": {"read": 3, "accepted": 1, "rejected": 1}})
