"""SemCSE's 350k training mix from SciRepEval's training sets, read from the release layout
(tests/summaries/fixtures/scirepeval: allenai/scirepeval configs, split train, one JSON-lines file each,
in the record shapes of its training data: papers, query + candidates, search, citation triplets)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sciembed.papers.io import read_parquet
from sciembed.papers.scirepeval import SciRepEvalDataError, read_release_papers
from sciembed.summaries.semcse_mix import PAPER_MIX, build_semcse_mix

ROOT = Path(__file__).parent / "fixtures" / "scirepeval"
SMALL = {"mesh_descriptors": 2, "fos": 2, "search": 5, "same_author": 3, "high_influence_cite": 2,
         "cite_prediction_new": 10}


def test_the_papers_mix_is_350k():
    assert sum(PAPER_MIX.values()) == 350_000 and PAPER_MIX["cite_prediction_new"] == 100_000
    assert set(PAPER_MIX) == {"mesh_descriptors", "fos", "search", "same_author", "high_influence_cite",
                              "cite_prediction_new"}


def test_every_record_shape_gives_its_papers():
    search = read_release_papers(ROOT, "search", "train")
    assert sorted(search.papers) == ["6", "7", "8"] and search.read == 2
    cite = read_release_papers(ROOT, "cite_prediction_new", "train")
    assert sorted(cite.papers) == ["1", "20", "21", "22", "23"]  # corpus_id ints, query/pos/neg
    assert cite.skipped == {"paper seen before in this split": 1}
    hic = read_release_papers(ROOT, "high_influence_cite", "train")
    assert sorted(hic.papers) == ["12", "13"] and hic.skipped == {"paper without id, title or abstract": 1}
    fos = read_release_papers(ROOT, "fos", "train")
    assert fos.read == 4 and sum(fos.rejected.values()) == 1 and len(fos.papers) == 3
    with pytest.raises(SciRepEvalDataError, match="load_dataset"):
        read_release_papers(ROOT, "relish", "train")


def test_mix_draws_each_quota_once_per_paper(tmp_path):
    manifest = build_semcse_mix(ROOT, tmp_path / "mix", SMALL, seed=0)
    papers = list(read_parquet(tmp_path / "mix" / "papers.parquet"))
    ids = [p.id for p in papers]
    assert len(ids) == len(set(ids))
    per = manifest["semcse_mix"]
    assert {c: per[c]["drawn"] for c in SMALL} == {"mesh_descriptors": 2, "fos": 2, "search": 3, "same_author": 3,
                                                   "high_influence_cite": 2, "cite_prediction_new":
                                                   5 - per["cite_prediction_new"]["already_drawn_by_earlier_configs"]}
    assert per["search"]["short"] == 2 and len(papers) == sum(per[c]["drawn"] for c in SMALL)
    assert {p.source.split(":")[1] for p in papers} == set(SMALL)
    assert json.loads((tmp_path / "mix" / "manifest.json").read_text())["kind"] == "ingested"
    again = build_semcse_mix(ROOT, tmp_path / "again", SMALL, seed=0)
    assert again["semcse_mix"] == per
    assert [p.id for p in read_parquet(tmp_path / "again" / "papers.parquet")] == ids


def test_cli_semcse_mix(tmp_path):
    from typer.testing import CliRunner

    from sciembed.cli.main import app

    run = CliRunner().invoke(app, ["summaries", "semcse-mix", str(ROOT), "--out", str(tmp_path / "mix")])
    assert run.exit_code == 0, run.output
    assert "cite_prediction_new:" in run.output and (tmp_path / "mix" / "papers.parquet").is_file()
    bad = CliRunner().invoke(app, ["summaries", "semcse-mix", str(tmp_path), "--out", str(tmp_path / "x")])
    assert bad.exit_code == 2 and "not found" in bad.output
