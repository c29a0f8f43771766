"""Query files for `sciembed search --papers / --queries`: every layout read, every bad line named by file:line."""

import pytest

from sciembed.search.query_files import QueryFileError, read_paper_ids, read_query_texts


def test_paper_ids_plain_commented_and_jsonl(tmp_path):
    path = tmp_path / "ids.txt"
    path.write_text('# query papers\nW1 first one\n\n{"paper_id": "W2"}\n{"id": "W3"}\n')
    assert read_paper_ids(path) == ["W1", "W2", "W3"]


def test_query_texts_jsonl_tsv_and_plain(tmp_path):
    path = tmp_path / "queries.txt"
    path.write_text('{"_id": "b1", "text": "beir style"}\n{"query": "no id"}\nt1\ttab separated\n# a hashtag query\n')
    assert read_query_texts(path) == [("b1", "beir style"), ("q2", "no id"), ("t1", "tab separated"),
                                      ("q4", "# a hashtag query")]


@pytest.mark.parametrize(("reader", "content", "message"), [
    (read_paper_ids, '{"paper_id": "W1"}\n{"title": "x"}\n', r"ids:2: no paper_id"),
    (read_paper_ids, "W1\n{broken\n", r"ids:2: not valid JSON"),
    (read_paper_ids, "# only a comment\n\n", r"ids: no paper ids"),
    (read_query_texts, '{"_id": "a"}\n', r"ids:1: no text"),
    (read_query_texts, "\n  \n", r"ids: no queries"),
])
def test_bad_files_name_file_and_line(tmp_path, reader, content, message):
    path = tmp_path / "ids"
    path.write_text(content)
    with pytest.raises(QueryFileError, match=message):
        reader(path)


def test_missing_and_binary_files(tmp_path):
    with pytest.raises(QueryFileError, match="no such file"):
        read_query_texts(tmp_path / "absent")
    binary = tmp_path / "ids"
    binary.write_bytes(b"W1\n\xff\xfe\n")
    with pytest.raises(QueryFileError, match=r"ids: not UTF-8 text \(byte 3\)"):
        read_paper_ids(binary)
