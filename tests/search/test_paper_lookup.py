"""`index search --paper` takes the id, any letter case or any external id, and suggests near ids and titles."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from fakes.tei import lookup_corpus
from sciembed.cli.main import app
from sciembed.index.bm25_paper import build_bm25_index
from sciembed.search.paper_lookup import PaperLookup, UnknownPaperError


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    root = tmp_path_factory.mktemp("lookup")
    build_bm25_index(lookup_corpus(root), "fulltext", root / "bm25")
    return root / "bm25"


def run(*args: str):
    return CliRunner().invoke(app, ["index", "search", *args])


def test_paper_by_doi_and_by_id_in_any_case(index):
    for key in ("10.18653/v1/P17-1002", "https://doi.org/10.18653/v1/p17-1002", "p17-1002", "P17-1002"):
        result = run(str(index), "--paper", key, "--k", "2")
        assert result.exit_code == 0, (key, result.output)
        assert "papers like P17-1002: Citation graphs of scientific papers" in result.output


def test_an_unknown_paper_is_named_with_near_ids_and_titles(index):
    result = run(str(index), "--paper", "P17-1003", "--k", "2")
    assert result.exit_code != 0
    message = " ".join(result.output.split())
    assert "no paper 'P17-1003' in the index (3 papers) by id or external id" in message
    assert "did you mean: P17-100" in message and "P17-1001" in message and "P17-1002" in message
    by_title = " ".join(run(str(index), "--paper", "citation contexts", "--k", "2").output.split())
    assert "did you mean: D18-1005 ('Parsing citation contexts in papers')" in by_title


def test_ambiguous_external_ids_resolve_nothing():
    lookup = PaperLookup({"a": "A", "b": "B"}, lambda: [("a", {"doi": "10.1/x"}), ("b", {"doi": "10.1/x"})])
    assert lookup.find("10.1/x") is None
    with pytest.raises(UnknownPaperError, match=r"no paper '10\.1/x'"):
        lookup.resolve("10.1/x")
