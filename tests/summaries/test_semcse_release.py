"""The SemCSE authors' released summaries, imported: fixtures in the layout the same authors released with
their summaries in inas-argumentation/SemCSE-Multi (``data/mistral_medical_summaries.json`` written by
``medical_embeddings/generate_aspect_specific_summaries.py``: ``{index: {"abstract", <prompt>: [..]}}``;
``data/mistral_invasion_biology_summaries.json``: ``{"labeled"|"unlabeled": {index: {<prompt>: [..]}}}`` with the
abstracts in ``data/invasion_dataset.json``, records ``{"index", "prediction_text"}``). The SemCSE repository's
own ``data/`` files are not in the public material available here (see the module docstring)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.corpus.layout import CorpusDir
from sciembed.summaries import read_summaries
from sciembed.summaries.records import SummaryFileError
from sciembed.summaries.semcse_release import import_semcse_release

FIXTURES = Path(__file__).parent / "fixtures" / "semcse_release"


def test_top_level_layout_with_abstracts(tmp_path):
    manifest = import_semcse_release(FIXTURES / "mistral_medical_summaries.json", tmp_path / "c")
    assert manifest["counts"] == {"read": 3, "accepted": 2, "rejected": 1}
    assert manifest["rejected_by_reason"] == {"no usable summary": 1}
    s = manifest["summaries"]
    assert s["read"] == 8 and s["written"] == 4 and s["read"] == s["written"] + s["rejected"]
    assert s["rejected_by_reason"] == {"'not applicable' (dropped as the authors' training does)": 2,
                                       "empty summary": 1, "summary is not a string": 1}
    papers = CorpusDir(tmp_path / "c").papers(["0", "1"])
    assert papers["0"].abstract.startswith("We train a sparse retriever")
    read = read_summaries(tmp_path / "c" / "summaries.jsonl", ["0", "1"])
    assert not read.rejected and read.by_source == {"semcse-release:stem_1": 3, "semcse-release:stem_2": 1}


def test_split_layout_with_the_separate_abstracts_file(tmp_path):
    manifest = import_semcse_release(FIXTURES / "mistral_invasion_biology_summaries.json", tmp_path / "c",
                                     FIXTURES / "invasion_dataset.json")
    assert manifest["counts"]["accepted"] == 2 and manifest["papers_without_abstract"] == 0
    papers = CorpusDir(tmp_path / "c").papers(["labeled/5", "unlabeled/9"])
    assert papers["unlabeled/9"].abstract == "Grazing shapes grassland invasions."
    without = import_semcse_release(FIXTURES / "mistral_invasion_biology_summaries.json", tmp_path / "d")
    assert without["papers_without_abstract"] == 2  # counted, the summaries still train


def test_semcse_trains_on_the_imported_summaries(tmp_path):
    from sciembed.training.sources.summaries import load_summary_data

    import_semcse_release(FIXTURES / "mistral_medical_summaries.json", tmp_path / "c")
    data = load_summary_data(tmp_path / "c")
    assert len(data) == 2 and data.n_summaries.tolist() == [2, 2]


def test_bad_files_and_the_cli(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2", encoding="utf-8")
    with pytest.raises(SummaryFileError, match=r"not JSON.*line 1"):
        import_semcse_release(bad, tmp_path / "x")
    bad.write_text(json.dumps({"0": {"stem_1": ["Not applicable."]}}), encoding="utf-8")
    with pytest.raises(SummaryFileError, match="no paper with a usable summary"):
        import_semcse_release(bad, tmp_path / "x")
    runner = CliRunner()
    result = runner.invoke(app, ["summaries", "semcse-release", str(bad), "-o", str(tmp_path / "x")])
    assert result.exit_code == 2 and "no paper with a usable summary" in result.output
    result = runner.invoke(app, ["summaries", "semcse-release", str(FIXTURES / "mistral_medical_summaries.json"),
                                 "-o", str(tmp_path / "ok")])
    assert result.exit_code == 0, result.output
    assert "read 3 = accepted 2 + rejected 1" in result.output and "read 8 = written 4 + rejected 4" in result.output
