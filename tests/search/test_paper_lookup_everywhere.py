"""`corpus inspect --paper` and `prism search CORPUS --paper` take what `index search --paper` takes: the id in
any letter case or any external id (DOI, ACL id …), and on a miss name near ids and titles (issue 31, item 1)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from fakes.models import build_tiny_bert
from fakes.tei import LOOKUP_PAPERS, lookup_corpus
from sciembed.cli.main import app

runner = CliRunner(env={"COLUMNS": "200"})


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return lookup_corpus(tmp_path_factory.mktemp("lookup-everywhere"))


@pytest.fixture(scope="module")
def tiny(corpus, tmp_path_factory):
    words = {w.strip(".,:;").lower() for title in LOOKUP_PAPERS.values() for w in title.split()}
    words |= {"we", "study", "graphs", "citations", "and", "parsing", "of", "in", "detail", "for"}
    return build_tiny_bert(tmp_path_factory.mktemp("tiny") / "model", sorted(words))


@pytest.mark.parametrize("key", ["P17-1002", "p17-1002", "10.18653/v1/P17-1002", "https://doi.org/10.18653/V1/p17-1002"])
def test_inspect_finds_a_paper_by_any_of_its_ids(corpus, key):
    result = runner.invoke(app, ["corpus", "inspect", str(corpus), "--paper", key])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("P17-1002  Citation graphs of scientific papers")


def test_inspect_names_near_ids_and_titles_on_a_miss(corpus):
    result = runner.invoke(app, ["corpus", "inspect", str(corpus), "--paper", "P17-1003"])
    message = " ".join(result.output.split())
    assert result.exit_code == 2 and "no paper 'P17-1003'" in message
    assert "did you mean: P17-100" in message and "'Citation graphs of scientific papers'" in message
    by_title = " ".join(runner.invoke(app, ["corpus", "inspect", str(corpus), "--paper", "citation contexts"])
                        .output.split())
    assert "did you mean: D18-1005 ('Parsing citation contexts in papers')" in by_title


def test_prism_takes_an_external_id_and_reports_the_paper_id(corpus, tiny):
    result = runner.invoke(app, ["prism", "search", str(corpus), "--paper", "10.18653/v1/p17-1002", "--model",
                                 str(tiny), "--output-format", "json", "--k", "2"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{"):])
    assert data["paper"] == "P17-1002" and data["title"] == "Citation graphs of scientific papers"
    assert "P17-1002" not in [h["paper_id"] for h in data["hits"]]


def test_prism_suggests_near_ids_before_loading_a_model(corpus, tmp_path):
    result = runner.invoke(app, ["prism", "search", str(corpus), "--paper", "d18-1006", "--model",
                                 str(tmp_path / "no-model")])
    message = " ".join(result.output.split())
    assert result.exit_code == 2 and "no paper 'd18-1006'" in message and "did you mean: D18-1005" in message


def test_prism_search_resolves_ids_from_python(corpus, tiny):
    from sciembed.search.paper_lookup import UnknownPaperError
    from sciembed.search.prism.api import prism_search

    result, _ = prism_search(corpus, "P17-1001".lower(), encoder=str(tiny), top_k=2)
    assert result.hits and "P17-1001" not in [h.paper_id for h in result.hits]
    with pytest.raises(UnknownPaperError, match="did you mean"):
        prism_search(corpus, "P17-1009", encoder=str(tiny))
