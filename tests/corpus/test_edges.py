"""Edge files: every line accepted or rejected with a reason; malformed lines named by file:line."""

from __future__ import annotations

import gzip

import pytest

from sciembed.corpus.edges import EdgeFileError, read_edge_files
from sciembed.corpus.engine import connect, run
from sciembed.corpus.papers_table import load_papers
from sciembed.papers.model import ExternalIds


def _read(tmp_path, corpus, paths, strict=False):
    """Load the corpus papers, read the edge files; return stats and (src, citing id, cited id) rows."""
    with connect(1, "500MB", tmp_path / "duck") as con:
        load_papers(con, corpus / "papers.parquet")
        run(con, "CREATE TEMP TABLE raw_edges (src INTEGER, citing BIGINT, cited BIGINT)")
        stats = read_edge_files(con, paths, strict=strict)
        rows = con.execute(
            """SELECT e.src, a.id, b.id FROM raw_edges e LEFT JOIN papers a ON a.pk = e.citing
               LEFT JOIN papers b ON b.pk = e.cited ORDER BY ALL"""
        ).fetchall()
    return stats, rows


@pytest.fixture
def s2_corpus(paper, write_corpus):
    return write_corpus([
        paper("p1", external_ids=ExternalIds(s2="11")),
        paper("p2", external_ids=ExternalIds(s2="22")),
        paper("33"),  # an id that is itself numeric matches directly
    ])


def test_s2_jsonl_every_line_accounted(tmp_path, s2_corpus):
    lines = [
        b'{"citingcorpusid": 11, "citedcorpusid": "22"}',  # 1 ok (S2 ids of p1, p2)
        b"",  # 2 blank: not a record
        b'{"citingcorpusid": "abc", "citedcorpusid": 22}',  # 3 non_numeric_id
        b'{"citingcorpusid": null, "citedcorpusid": 22}',  # 4 empty_id
        b'{"citedcorpusid": 22}',  # 5 missing_id
        b'{"citingcorpusid": 1.5, "citedcorpusid": 22}',  # 6 non_numeric_id
        b"[11, 22]",  # 7 malformed: not an object
        b'{"citingcorpusid": 11, "citedcorpusid": 22',  # 8 malformed: invalid JSON
        b'{"citingcorpusid": "\xff", "citedcorpusid": 22}',  # 9 malformed: invalid UTF-8
        b'{"citingcorpusid": 22, "citedcorpusid": 99}\r',  # 10 ok, cited paper unknown (CRLF line)
        b'{"citingcorpusid": 33, "citedcorpusid": 11}',  # 11 ok, no final newline
    ]
    path = tmp_path / "citations.jsonl"
    path.write_bytes(b"\n".join(lines))
    (stat,), rows = _read(tmp_path, s2_corpus, [path])
    assert stat.columns == ("citingcorpusid", "citedcorpusid")
    assert stat.lines == 10 and stat.blank_lines == 1 and stat.accepted == 3
    assert stat.rejected == {"malformed_line": 3, "non_numeric_id": 2, "empty_id": 1, "missing_id": 1}
    assert stat.lines == stat.accepted + sum(stat.rejected.values())
    assert stat.examples == [f"{path}:7: not a JSON object", f"{path}:8: invalid JSON", f"{path}:9: invalid UTF-8"]
    assert rows == [(1, "33", "p1"), (1, "p1", "p2"), (1, "p2", None)]


def test_csv_aliases_quotes_gzip_and_tsv(tmp_path, paper, write_corpus):
    corpus = write_corpus([paper("a"), paper("b,c"), paper("d")])
    csv_gz = tmp_path / "e.csv.gz"
    with gzip.open(csv_gz, "wt") as fh:
        fh.write('source,target,weight\na,"b,c",1\n\n"d",a,2\nd,,3\nd,a\n')
    tsv = tmp_path / "e.tsv"
    tsv.write_text("cited\tciting\nd\ta\nb\t  \n")
    stats, rows = _read(tmp_path, corpus, [csv_gz, tsv])
    assert stats[0].columns == ("source", "target")
    assert (stats[0].lines, stats[0].accepted, stats[0].rejected) == (4, 2, {"empty_id": 1, "malformed_line": 1})
    assert stats[0].examples == [f"{csv_gz}:6: MISSING COLUMNS: Expected Number of Columns: 3 Found: 2"]
    assert (stats[1].lines, stats[1].accepted, stats[1].rejected) == (2, 1, {"empty_id": 1})
    assert rows == [(1, "a", "b,c"), (1, "d", "a"), (2, "a", "d")]


def test_json_values_that_are_not_ids(tmp_path, paper, write_corpus):
    corpus = write_corpus([paper("7"), paper("x")])
    path = tmp_path / "e.ndjson"
    path.write_text('{"citing": 7, "cited": "x"}\n{"citing": true, "cited": "x"}\n{"citing": {"id": 1}, "cited": "x"}\n'
                    '{"citing": "x", "cited": "  "}\n{"citing": -3, "cited": "x"}\n')
    (stat,), rows = _read(tmp_path, corpus, [path])
    assert stat.rejected == {"invalid_id": 2, "empty_id": 1}
    assert rows == [(1, "7", "x"), (1, None, "x")]  # -3 is a valid id that names no paper


def test_unusable_files_fail_with_where_and_what(tmp_path, paper, write_corpus):
    corpus = write_corpus([paper("a")])
    bad_header = tmp_path / "e.csv"
    bad_header.write_text("from,to\na,b\n")
    with pytest.raises(EdgeFileError, match=r"e\.csv:1 \(header\): no column naming the citing paper.*found from, to"):
        _read(tmp_path, corpus, [bad_header])
    odd = tmp_path / "e.parquet"
    odd.write_text("")
    with pytest.raises(EdgeFileError, match="unknown edge file format"):
        _read(tmp_path, corpus, [odd])
    with pytest.raises(EdgeFileError, match="edge file not found"):
        _read(tmp_path, corpus, [tmp_path / "missing.csv"])


def test_strict_mode_stops_at_the_first_malformed_line(tmp_path, paper, write_corpus):
    corpus = write_corpus([paper("a"), paper("b")])
    path = tmp_path / "e.jsonl"
    path.write_text('{"citing_id": "a", "cited_id": "b"}\nnot json\n{"oops"\n')
    with pytest.raises(EdgeFileError, match=r"e\.jsonl:2: invalid JSON \(and 1 more malformed lines\)"):
        _read(tmp_path, corpus, [path], strict=True)
    (stat,), rows = _read(tmp_path, corpus, [path], strict=False)
    assert stat.rejected == {"malformed_line": 2} and rows == [(1, "a", "b")]
