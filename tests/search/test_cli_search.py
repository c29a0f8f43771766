"""`sciembed index` / `sciembed search` end to end on real unarXive papers with a tiny random BERT."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fakes.models import build_tiny_bert
from sciembed.cli.main import app
from sciembed.index.paper_index import open_paper_index
from sciembed.models import load_encoder
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Section

runner = CliRunner(env={"COLUMNS": "200"})


def unarxive_papers(shared_data: Path, n: int) -> list[Paper]:
    """The first `n` sample records as Papers (sections grouped by heading); the last one without a body."""
    path = shared_data / "unarxive-sample" / "arXiv_src_2212_086.jsonl"
    papers = []
    with open(path, encoding="utf-8") as lines:
        for _, line in zip(range(n), lines, strict=False):
            record = json.loads(line)
            sections: dict[str, list[str]] = {}
            for paragraph in record["body_text"]:
                sections.setdefault(paragraph["section"] or "", []).append(paragraph["text"])
            papers.append(
                Paper(
                    id=record["paper_id"],
                    title=" ".join(record["metadata"]["title"].split()),
                    abstract=" ".join(record["abstract"]["text"].split()),
                    sections=tuple(Section(h, " ".join(t)) for h, t in sections.items()),
                )
            )
    papers[-1] = Paper(id=papers[-1].id, title=papers[-1].title, abstract=papers[-1].abstract)
    return papers


@pytest.fixture(scope="module")
def corpus(tmp_path_factory, shared_data) -> tuple[Path, list[Paper]]:
    root = tmp_path_factory.mktemp("corpus")
    papers = unarxive_papers(shared_data, 8)
    write_parquet(papers, root / "papers.parquet")
    return root, papers


@pytest.fixture()
def tiny(tmp_path, corpus) -> Path:
    words = {w.strip(".,;:()$").lower() for p in corpus[1] for w in f"{p.title} {p.abstract}".split()}
    return build_tiny_bert(tmp_path / "tiny", sorted(words), seed=0)


@pytest.mark.parametrize("view", ["ta", "window", "section"])
def test_index_then_search_by_query_and_by_paper(corpus, tiny, tmp_path, view):
    root, papers = corpus
    out = tmp_path / "index"
    result = runner.invoke(app, ["index", "build", str(root), "--model", str(tiny), "--view", view, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "of 8 papers" in result.output and "0 rejected" in result.output
    loaded = open_paper_index(out)
    assert len(loaded.index) == 8 and loaded.manifest["view"] == view
    counts = loaded.manifest["counts"]
    assert counts["read"] == counts["indexed"] + counts["ta_fallback"] + counts["rejected"] == 8
    assert counts["ta_fallback"] == (0 if view == "ta" else 1)  # the body-less paper still gets indexed
    if view != "ta":
        assert loaded.index.num_views > 8

    result = runner.invoke(app, ["index", "search", str(out), "--query", papers[2].title, "--k", "3"])
    assert result.exit_code == 0, result.output
    query_vector = load_encoder(str(tiny)).encode([papers[2].title], show_progress=False)
    assert table_ids(result.output) == [p for p, _ in loaded.index.search(query_vector, 3)[0]]

    result = runner.invoke(app, ["index", "search", str(out), "--paper", papers[0].id, "--k", "5"])
    assert result.exit_code == 0, result.output
    shown = table_ids(result.output)
    assert len(shown) == 5 and papers[0].id not in shown  # the query paper is never among its own results
    assert shown == [p for p, _ in loaded.index.search_paper(papers[0].id, 5)]


def table_ids(output: str) -> list[str]:
    """Paper ids of the result rows of a rich table, in rank order."""
    rows = [[c.strip() for c in line.strip("│ ").split("│")] for line in output.splitlines() if line.startswith("│")]
    return [row[2] for row in rows if row[0].isdigit()]


def test_search_refuses_an_index_built_by_other_weights(corpus, tiny, tmp_path):
    root, papers = corpus
    out = tmp_path / "index"
    assert runner.invoke(app, ["index", "build", str(root), "--model", str(tiny), "--out", str(out)]).exit_code == 0
    other = build_tiny_bert(tmp_path / "other", (tiny / "vocab.txt").read_text().split()[5:], seed=1)
    shutil.copyfile(other / "model.safetensors", tiny / "model.safetensors")  # the model changed after indexing
    result = runner.invoke(app, ["index", "search", str(out), "--query", papers[1].title])
    assert result.exit_code == 2
    assert "built with encoder fingerprint" in result.output


def test_bad_arguments_get_one_clear_message(corpus, tiny, tmp_path):
    root, _ = corpus
    result = runner.invoke(app, ["index", "build", str(root), "--model", str(tiny), "--view", "chapter",
                                 "--out", str(tmp_path)])
    assert result.exit_code == 2 and "unknown view 'chapter'; expected one of ta, window, section" in result.output
    result = runner.invoke(app, ["index", "search", str(tmp_path / "none"), "--query", "x", "--paper", "y"])
    assert result.exit_code == 2 and "exactly one of --query TEXT or --paper ID" in result.output
    result = runner.invoke(app, ["index", "search", str(tmp_path / "none"), "--paper", "y"])
    assert result.exit_code == 2 and "no manifest.json" in result.output


def test_batch_search_bm25_kind_formats_and_hybrid(corpus, tiny, tmp_path):
    root, papers = corpus
    dense, lexical = tmp_path / "dense", tmp_path / "bm25"
    assert runner.invoke(app, ["index", "build", str(root), "--model", str(tiny), "--view", "segment",
                               "--out", str(dense)]).exit_code == 0
    result = runner.invoke(app, ["index", "build", str(root), "--model", "bm25", "--view", "section",
                                 "--out", str(lexical)])
    assert result.exit_code == 0 and "with BM25" in result.output, result.output
    ids = tmp_path / "papers.txt"
    ids.write_text(f"{papers[0].id}\n# a comment\n{papers[3].id}\n")
    result = runner.invoke(app, ["index", "search", str(lexical), "--papers", str(ids), "--k", "3",
                                 "--output-format", "trec"])
    assert result.exit_code == 0, result.output
    lines = [line.split() for line in result.output.splitlines()]
    assert len(lines) == 6 and {line[0] for line in lines} == {papers[0].id, papers[3].id}
    assert all(line[0] != line[2] for line in lines)  # never the query paper itself
    result = runner.invoke(app, ["index", "search", str(dense), str(lexical), "--papers", str(ids),
                                 "--output-format", "json", "--method", "late", "--k", "4"])
    assert result.exit_code == 0, result.output
    assert "fused by RRF (k=60)" in result.stderr  # said on stderr, so stdout stays JSON
    fused = json.loads(result.stdout)
    assert [q["query"] for q in fused] == [papers[0].id, papers[3].id] and len(fused[0]["hits"]) == 4
    queries = tmp_path / "queries.tsv"
    queries.write_text(f"t1\t{papers[2].title}\nt2\t{papers[5].title}\n")
    result = runner.invoke(app, ["index", "search", str(lexical), "--queries", str(queries), "--k", "2"])
    assert result.exit_code == 0, result.output
    table = result.output.splitlines()
    assert table[0].split()[:4] == ["query", "rank", "score", "paper"] and len(table) == 5
    assert table[1].split()[3] == papers[2].id  # full ids in the plain table
    out = tmp_path / "run.trec"
    result = runner.invoke(app, ["index", "search", str(dense), "--papers", str(ids), "--output-format", "trec",
                                 "--out", str(out)])
    assert result.exit_code == 0 and len(out.read_text().splitlines()) == 2 * 7
    # --method compares views in a dense index: on BM25 alone it is an error, never silently ignored
    result = runner.invoke(app, ["index", "search", str(lexical), "--papers", str(ids), "--method", "late"])
    assert result.exit_code == 2 and "is a BM25 index" in result.output
    # an old method name (max, sum, prism_worst: never released) is refused with the names there are
    result = runner.invoke(app, ["index", "search", str(dense), "--papers", str(ids), "--method", "max"])
    assert result.exit_code == 2 and "max_sim, late, naive_sum, max_sim_prism_code" in result.output, result.output
    for old in (["search", str(dense), "--papers", str(ids)], ["index", "search", str(dense), "--format", "trec"]):
        assert runner.invoke(app, old).exit_code == 2
