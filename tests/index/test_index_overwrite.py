"""Issue 31, item 4: `index build` into an existing index refuses without --overwrite; with it no old file is left."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes.models import build_tiny_bert
from sciembed.cli.main import app
from sciembed.index.bm25_paper import open_bm25_index
from sciembed.index.index_out import check_index_out
from sciembed.index.paper_index import open_paper_index
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Section

runner = CliRunner(env={"COLUMNS": "200"})
WORDS = ["graph", "neural", "protein", "folding", "galaxy", "spectra", "soil", "gene", "network", "model"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("corpus")
    papers = [Paper(id=f"p{i}", title=f"{WORDS[i]} {WORDS[(i + 3) % 10]}", abstract=" ".join(WORDS[i:] + WORDS[:i]),
                    sections=(Section("Introduction", " ".join(WORDS[::-1] * 3)),)) for i in range(6)]
    write_parquet(papers, root / "papers.parquet")
    return root


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    return build_tiny_bert(tmp_path_factory.mktemp("tiny") / "bert", WORDS, seed=0)


def build(corpus: Path, out: Path, *extra: str):
    """`index build` of one view (title+abstract unless `extra` names another; the full-text default is tested in
    test_fulltext_index.py)."""
    view = [] if "--view" in extra or "bm25" in extra else ["--view", "ta"]
    return runner.invoke(app, ["index", "build", str(corpus), "--out", str(out), *view, *extra])


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_an_existing_index_is_refused_without_overwrite(corpus, tiny, tmp_path):
    out = tmp_path / "idx"
    assert build(corpus, out, "--model", str(tiny)).exit_code == 0
    before = {name: (out / name).read_bytes() for name in ("manifest.json", "papers.json")}
    for model in (str(tiny), "bm25"):
        refused = build(corpus, out, "--model", model)
        assert refused.exit_code == 2, refused.output
        assert "already holds an index; pass --overwrite" in " ".join(refused.output.split())
    assert {name: (out / name).read_bytes() for name in before} == before  # untouched
    assert len(open_paper_index(out).titles) == 6


def test_overwrite_leaves_no_file_of_the_old_index(corpus, tiny, tmp_path):
    out = tmp_path / "idx"
    assert build(corpus, out, "--model", str(tiny)).exit_code == 0
    (out / "fusion.json").write_text("{}")  # tuned for the old index: must go with it
    dense_files = files_under(out)
    assert "index/meta.json" in dense_files and "fusion.json" in dense_files
    replaced = build(corpus, out, "--model", "bm25", "--view", "fulltext", "--overwrite")
    assert replaced.exit_code == 0, replaced.output
    now = files_under(out)
    # no faiss file beside the BM25 one
    assert {n.split("/")[0] for n in now} == {"manifest.json", "papers.json", "bm25s"}, now
    _index, manifest, titles = open_bm25_index(out)
    assert manifest["kind"] == "bm25" and len(titles) == 6
    back = build(corpus, out, "--model", str(tiny), "--overwrite")
    assert back.exit_code == 0, back.output
    assert "bm25s" not in files_under(out) and len(open_paper_index(out).titles) == 6
    assert not [p for p in out.parent.iterdir() if ".partial-" in p.name or ".old-" in p.name]


def test_a_failed_overwrite_keeps_the_old_index(corpus, tiny, tmp_path):
    out = tmp_path / "idx"
    assert build(corpus, out, "--model", str(tiny)).exit_code == 0
    before = files_under(out)
    empty = tmp_path / "empty"
    empty.mkdir()
    write_parquet([Paper(id="x", title="")], empty / "papers.parquet")
    failed = build(empty, out, "--model", str(tiny), "--overwrite")
    assert failed.exit_code == 2 and "has text to index" in failed.output, failed.output
    assert files_under(out) == before and len(open_paper_index(out).titles) == 6


def test_other_files_are_never_replaced(tmp_path):
    out = tmp_path / "thesis"
    out.mkdir()
    (out / "chapter1.tex").write_text("precious")
    with pytest.raises(ValueError, match="pass --overwrite"):
        check_index_out(out)
    with pytest.raises(ValueError, match="did not write"):
        check_index_out(out, overwrite=True)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match="not a directory"):
        check_index_out(tmp_path / "file", overwrite=True)


def test_a_killed_sharded_build_resumes_in_place(corpus, tiny, tmp_path):
    out = tmp_path / "idx"
    (out / "shards").mkdir(parents=True)  # what a run killed before its first shard leaves
    assert check_index_out(out, resumable=True) is True  # resumed, not refused
    with pytest.raises(ValueError, match="pass --overwrite"):
        check_index_out(out)  # an unsharded build does not write into it
    built = build(corpus, out, "--model", str(tiny), "--shard-papers", "4")
    assert built.exit_code == 0, built.output
    assert len(open_paper_index(out).titles) == 6
