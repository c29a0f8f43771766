"""The semantic benchmark: gold ranks, the paper's overall score, building from a corpus, the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.evaluation import BenchmarkError
from sciembed.evaluation.semantic import TFIDF_SOURCE, build_semantic_benchmark, overall_scores_of
from sciembed.models.distance import gold_ranks
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper

TOPICS = ["graph neural networks citation", "protein folding structure", "speech recognition audio",
          "reinforcement learning robots", "galaxy survey redshift", "soil carbon climate"]


def _papers(n: int = 24) -> list[Paper]:
    papers = []
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        words = topic.split()
        abstract = (f"We study {topic} problem {i}. The {words[0]} model uses {words[1]} data. "
                    f"Our {words[2]} results improve case {i}. Finally {words[0]} matters.")
        papers.append(Paper(id=f"p{i:02d}", title=f"{topic.title()} number {i}", abstract=abstract,
                            domain=f"d{i % 3}"))
    papers.append(Paper(id="short", title="One sentence paper", abstract="Only one sentence here.", domain="d0"))
    papers.append(Paper(id="noabs", title="No abstract", abstract=""))
    return papers


def _corpus(root: Path, papers: list[Paper]) -> Path:
    root.mkdir(parents=True)
    write_parquet(papers, root / "papers.parquet")
    (root / "manifest.json").write_text("{}")
    return root


class BagOfWords:
    """A transparent encoder: counts of hashed lowercase words (no model)."""

    name = fingerprint = "bow"
    metric = "cosine"
    dim, max_seq_length = 64, 512

    def encode(self, texts, *, batch_size: int = 32, show_progress: bool = True) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                out[row, sum(map(ord, word)) % 64] += 1.0
        return out


def _scored(encoder, bench, name: str = "semantic") -> dict:
    """task -> result of `encoder` on `bench` through the executor (`evaluation.evaluate`), as the suite scores it."""
    from sciembed.evaluation import evaluate
    from sciembed.evaluation.benchmarks.semantic import SemanticTasks

    return {r.task: r for r in evaluate(encoder, SemanticTasks(bench, name), show_progress=False).results}


def test_gold_ranks_by_hand() -> None:
    q = np.array([[0.0, 0.0], [1.0, 0.0]])
    c = np.array([[0.0, 0.1], [1.0, 0.0], [0.0, -0.1]])
    # l2: query 0 is 0.1 from candidates 0 and 2, 1.0 from candidate 1; query 1 is 0 from candidate 1 and
    # sqrt(1.01) from candidates 0 and 2. A tie counts half (the expected rank over random tie orders).
    assert gold_ranks(q, c, np.array([0, 0]), "l2").tolist() == [1.5, 2.5]
    assert gold_ranks(q, c, np.array([1, 2]), "l2").tolist() == [3.0, 2.5]
    # cosine ignores length: for query 1, candidate 1 is the only one pointing its way
    assert gold_ranks(q[1:], c, np.array([1]), "cosine").tolist() == [1]


def test_a_constant_encoder_gets_the_chance_rank_not_rank_one() -> None:
    """The issue's example: 100 identical vectors used to give mean rank 1.0, the best possible."""
    x = np.ones((100, 8))
    for metric in ("cosine", "l2"):
        ranks = gold_ranks(x, x, np.arange(100), metric)
        assert ranks.tolist() == [50.5] * 100  # (n + 1) / 2, the mean rank of a random order


def test_overall_score_is_the_papers_formula() -> None:
    scores = overall_scores_of({name: {"title2abstract": {"mean_rank": r}, "clustering": {"knn_same_label": k}}
                                for name, r, k in (("a", 1.0, 0.9), ("b", 2.0, 0.5), ("c", 4.0, 0.7))})
    # title2abstract: median 2, best 1 → a 1.0, b 0.5, c 0.5 + 0.5·(4 − 2)/(1 − 2) = −0.5 → clipped to 0
    assert [scores[m]["title2abstract"] for m in "abc"] == [1.0, 0.5, 0.0]
    # clustering (higher is better): median 0.7, best 0.9 → a 1.0, b 0.0, c 0.5
    assert [scores[m]["clustering"] for m in "abc"] == pytest.approx([1.0, 0.0, 0.5])
    assert [scores[m]["overall"] for m in "abc"] == pytest.approx([1.0, 0.25, 0.25])


def test_build_counts_exclusions_and_skips(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c", _papers())
    bench = build_semantic_benchmark(corpus, n_papers=100, exclude={"p00", "p01"})
    assert bench.counts["read"] == 26 and bench.counts["excluded_used_in_training"] == 2
    assert bench.counts["usable"] == 23 and bench.counts["sampled"] == 23  # "noabs" has no abstract
    assert bench.issues.count("paper without an abstract") == 1
    assert bench.issues.count("abstract with fewer than 2 sentences") == 1
    assert bench.counts["queries"] == {"title2abstract": 23, "half2half": 22, "query2paper": 23}
    assert bench.query_source == TFIDF_SOURCE
    assert bench.counts["clustering"] == {"train": 18, "test": 5, "labels": 3}
    # the half split is after floor(n/2) of the 4 sentences
    half = bench.tasks["half2half"]
    assert half.queries[0].count(".") == 2 and half.candidates[0].count(".") == 2
    again = build_semantic_benchmark(corpus, n_papers=10, seed=3)
    assert again.counts["sampled"] == 10
    assert [p.id for p in again.papers] == [p.id for p in build_semantic_benchmark(corpus, n_papers=10, seed=3).papers]


def test_bad_input(tmp_path: Path) -> None:
    corpus = _corpus(tmp_path / "c", _papers(2))
    with pytest.raises(BenchmarkError, match="a benchmark pool needs at least 2") as err:
        build_semantic_benchmark(corpus, exclude={"p00", "p01", "short"})
    assert "0 usable papers (of 4 read, 3 used in training)" in str(err.value)
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"paper_id": "p00", "query": "graphs", "source": "llm:x"}) + "\n{bad\n"
                       + json.dumps({"paper_id": "ghost", "query": "x", "source": "llm:x"}) + "\n")
    bench = build_semantic_benchmark(corpus, queries_file=queries)
    assert bench.query_source == "llm:x" and bench.counts["queries"]["query2paper"] == 1
    assert bench.issues.count("query line is not valid JSON") == 1
    assert bench.issues.count("query for a paper outside the benchmark sample") == 1
    assert bench.issues.count("paper without a query in the queries file") == 2


def test_evaluate_with_a_transparent_encoder(tmp_path: Path) -> None:
    bench = build_semantic_benchmark(_corpus(tmp_path / "c", _papers()))
    results = _scored(BagOfWords(), bench)
    t2a = results["title2abstract"]
    assert 1.0 <= t2a.metrics["mean_rank"] < 25 / 2  # word overlap beats the pool's middle
    ranks = np.asarray(list(t2a.per_query["rank"].values()))
    assert t2a.metrics["mrr"] == pytest.approx(100 * np.mean(1.0 / ranks))
    assert t2a.kind == "gold_rank" and results["query2paper"].counts["pool"] == 25
    assert 0.0 <= results["clustering"].metrics["knn_same_label"] <= 1.0


def test_cli_semantic_with_a_tiny_model(tmp_path: Path) -> None:
    from fakes.models import build_tiny_bert

    papers = _papers()
    corpus = _corpus(tmp_path / "c", papers)
    words = {w for p in papers for w in re.findall(r"[a-z0-9]+", (p.title + " " + p.abstract).lower())}
    model = build_tiny_bert(tmp_path / "tiny", sorted(words))
    (model / "training_papers.txt").write_text("p00\np01\np02\n")
    result = CliRunner().invoke(app, ["eval", "run", "--kind", "semantic", str(corpus), "-m", str(model), "-o",
                                      str(tmp_path / "r"), "--set", "sample=20"])
    assert result.exit_code == 0, result.output
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["benchmarks"]["c"]["counts"]["excluded_used_in_training"] == 3
    assert results["benchmarks"]["c"]["counts"]["sampled"] == 20
    [cell] = results["cells"]
    from sciembed.ioutil.portable import portable_path

    assert cell["model"] == portable_path(model)  # results files hold no machine paths
    assert {r["task"] for r in cell["results"]} == {"title2abstract", "half2half", "query2paper", "clustering",
                                                    "anisotropy"}
    assert {r["primary"] for r in cell["results"]} == {"mean_rank", "knn_same_label", "isotropy"}
    assert set(cell["summary"]) == {"title2abstract", "half2half", "query2paper", "clustering"}
    detail = (tmp_path / "r" / "benchmarks" / "c.md").read_text()
    assert "tfidf-terms (offline fallback, not LLM queries)" in detail


def _tiny_cls_model(root: Path, words: list[str]) -> Path:
    """A sentence-transformers model with CLS pooling over a tiny random BERT whose last LayerNorm has
    random gains, so CLS vectors differ in length and Euclidean ranks can differ from cosine ones."""
    import torch
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    from fakes.models import build_tiny_bert

    bert = build_tiny_bert(root / "bert", words)
    transformer = Transformer(str(bert), max_seq_length=64)
    norm = transformer.auto_model.encoder.layer[-1].output.LayerNorm
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():
        norm.weight.copy_(torch.rand(norm.weight.shape, generator=generator) * 3)
        norm.bias.copy_(torch.randn(norm.bias.shape, generator=generator))
    pooling = Pooling(transformer.get_embedding_dimension(), pooling_mode="cls")
    SentenceTransformer(modules=[transformer, pooling], device="cpu").save(str(root / "cls"))
    return root / "cls"


def test_cli_semantic_pooling_and_metric_change_the_ranking(tmp_path: Path) -> None:
    """A CLS / Euclidean checkpoint (SemCSE's released one) must be scored as such: `--pooling` and `--metric`
    reach `eval --semantic`, are recorded, and change the per-query ranks of a tiny CLS model."""
    papers = _papers()
    corpus = _corpus(tmp_path / "c", papers)
    words = {w for p in papers for w in re.findall(r"[a-z0-9]+", (p.title + " " + p.abstract).lower())}
    model = _tiny_cls_model(tmp_path, sorted(words))
    ranks, recorded = {}, {}
    for label, flags in {"own": [], "l2": ["--metric", "l2"], "mean": ["--pooling", "mean"]}.items():
        out = tmp_path / label
        result = CliRunner().invoke(app, ["eval", "run", "--kind", "semantic", str(corpus), "-m", str(model), "-o",
                                          str(out),
                                          "--set", "sample=20", *flags])
        assert result.exit_code == 0, result.output
        (cell,) = json.loads((out / "results.json").read_text())["cells"]
        per_task = {r["task"]: r["per_query"]["rank"] for r in cell["results"] if r["kind"] == "gold_rank"}
        ranks[label] = [per_task[t] for t in ("title2abstract", "half2half", "query2paper")]
        recorded[label] = (cell["config"]["pooling"], cell["config"]["encoder_metric"])
    assert recorded == {"own": ("model's own", "cosine"), "l2": ("model's own", "l2"), "mean": ("mean", "cosine")}
    assert ranks["own"] != ranks["l2"] and ranks["own"] != ranks["mean"]
    bad = CliRunner().invoke(app, ["eval", "run", "--kind", "semantic", str(corpus), "-m", str(model), "-o",
                                   str(tmp_path / "x"),
                                   "--metric", "dot"])
    assert bad.exit_code == 2


def test_generalisation_check_and_anisotropy(tmp_path: Path) -> None:
    """SemCSE §5.1: a summary → TA / title / abstract, ranked among the sample's; outside the overall score.
    Appendix B.2: the spectrum of the unnormalised, mean-centred TA vectors is recorded per model."""
    papers = _papers()
    summaries = tmp_path / "summaries.jsonl"
    lines = [{"paper_id": p.id, "text": f"{p.title.lower()} summary", "source": "test"} for p in papers[:10]]
    lines += [{"paper_id": "p00", "text": "a second summary is not used", "source": "test"},
              {"paper_id": "elsewhere", "text": "not in the corpus", "source": "test"}, {"paper_id": "p01"}]
    summaries.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    bench = build_semantic_benchmark(_corpus(tmp_path / "c", papers), summaries_file=summaries)
    assert bench.tasks["summary2title"].queries[0] == "graph neural networks citation number 0 summary"
    assert len(bench.tasks["summary2ta"].queries) == 10 and len(bench.tasks["summary2ta"].candidates) == 25
    messages = " ".join(i.message() for i in bench.issues)
    assert "outside the benchmark sample" in messages and "rejected" in messages
    results = _scored(BagOfWords(), bench)
    assert results["summary2title"].metrics["mean_rank"] < 25 / 2
    scores = overall_scores_of({"bow": {t: r.metrics for t, r in results.items()}})
    assert set(scores["bow"]) == {"title2abstract", "half2half", "query2paper", "clustering", "overall"}
    anisotropy = results["anisotropy"].details["anisotropy"]
    assert anisotropy["papers"] == 25 and 0 < anisotropy["isotropy"] <= 1
    from fakes.models import build_tiny_bert

    words = {w for p in papers for w in re.findall(r"[a-z0-9]+", (p.title + " " + p.abstract).lower())}
    model = build_tiny_bert(tmp_path / "tiny", sorted(words | {"summary"}))
    result = CliRunner().invoke(app, ["eval", "run", "--kind", "semantic", str(tmp_path / "c"), "-m", str(model),
                                      "-o", str(tmp_path / "r"), "--set", f"summaries_file={summaries}"])
    assert result.exit_code == 0, result.output
    (cell,) = json.loads((tmp_path / "r" / "results.json").read_text())["cells"]
    assert {"summary2ta", "summary2title", "summary2abstract"} <= {r["task"] for r in cell["results"]}
    assert "summary2ta" not in cell["summary"]  # reported, outside the summary (the paper's overall score)
    [anisotropy] = [r for r in cell["results"] if r["task"] == "anisotropy"]
    assert anisotropy["kind"] == "geometry" and "anisotropy" not in cell["summary"]
    # the suite report carries SemCSE's table: mean ranks, the overall score, anisotropy, mean_rank.png
    report = (tmp_path / "r" / "report.md").read_text()
    assert "SemCSE's semantic benchmark" in report and "overall score ↑" in report and "mean_rank.png" in report
    [png] = (tmp_path / "r" / "benchmarks").glob("*/mean_rank.png")
    assert png.stat().st_size > 0
    [details] = json.loads((tmp_path / "r" / "results.json").read_text())["details"].values()
    assert details["overall_score"][str(model)]["overall"] == 1.0  # one model: the best and the median
    [page] = (tmp_path / "r" / "benchmarks").glob("*.md")
    assert "## Generalisation check" in page.read_text() and "## Anisotropy" in page.read_text()


def test_suite_report_overall_score_is_the_papers_across_models(tmp_path: Path) -> None:
    """Two models through the suite's cell and report writer: the report's overall score is `overall_scores_of`
    the same models' mean ranks (the paper's formula, across the models of the report)."""
    from fakes.models import HashingEncoder
    from sciembed.evaluation.bench import Suite, SuiteRun, write_suite_report
    from sciembed.evaluation.bench.runner import compute_cell
    from sciembed.evaluation.benchmarks.semantic import SemanticTasks
    from sciembed.evaluation.scorers import DenseScorer

    bench = build_semantic_benchmark(_corpus(tmp_path / "c", _papers()))
    bow = BagOfWords()
    encoders = {"bow": bow, "hash": HashingEncoder(dim=8, name="hash")}
    adapter = SemanticTasks(bench, "sem")
    cells = {(n, "sem"): compute_cell(n, "sem", "key", adapter, DenseScorer(e, show_progress=False), False)
             for n, e in encoders.items()}
    suite = Suite(out=str(tmp_path / "out"), models=[{"name": n, "model": n} for n in encoders],
                  benchmarks=[{"name": "sem", "kind": "semantic", "path": str(tmp_path / "c")}])
    (tmp_path / "out").mkdir()
    write_suite_report(SuiteRun(suite, tmp_path / "out", {"sem": adapter}, {}, cells))
    details = json.loads((tmp_path / "out" / "results.json").read_text())["details"]["sem"]
    expected = overall_scores_of({n: {t: r.metrics for t, r in _scored(e, bench).items()} for n, e in encoders.items()})
    assert set(details["overall_score"]) == set(expected)
    for name, scores in expected.items():
        assert details["overall_score"][name] == pytest.approx(scores)
    assert {s["overall"] for s in expected.values()} != {1.0}  # the two models differ: the score is relative
    report = (tmp_path / "out" / "report.md").read_text()
    for name, scores in expected.items():
        assert f"| {name} | cosine |" in report and f"| {scores['overall']:.3f} |" in report
    assert (tmp_path / "out" / "benchmarks" / "sem" / "mean_rank.png").is_file()


def test_spectrum_of_raw_mean_centred_vectors() -> None:
    """`normalize=False` keeps the vectors' lengths: one direction with 10× the spread holds
    100 / (100 + 15) of the variance of 16-dimensional Gaussian rows, whatever common offset; and
    long isotropic rows next to short rows on one axis are nearly isotropic raw, but not once every
    row is normalised (the short rows become ±e₀ and hold half the variance)."""
    from sciembed.evaluation.geometry import spectrum

    rng = np.random.default_rng(0)
    x = rng.standard_normal((20_000, 16))
    x[:, 0] *= 10
    x += 50.0  # a common offset: centring removes it
    assert spectrum(x, normalize=False)["top_share"]["1"] == pytest.approx(100 / 115, abs=0.01)
    long = 100 * rng.standard_normal((10_000, 16))
    short = np.zeros((10_000, 16))
    short[:, 0] = rng.standard_normal(10_000)
    mixed = np.vstack([long, short])
    assert spectrum(mixed, normalize=False)["top_share"]["1"] < 0.1
    assert spectrum(mixed)["top_share"]["1"] > 0.45


def test_the_papers_construction_from_the_scirepeval_release(tmp_path: Path) -> None:
    """N train-split papers from each listed allenai/scirepeval config (a paper drawn once), clustering on
    SciDocs MAG's official train/test split (fixtures/scirepeval_semantic, the release layout)."""
    from sciembed.evaluation.semantic import build_scirepeval_semantic_benchmark

    root = Path(__file__).parent / "fixtures" / "scirepeval_semantic"
    bench = build_scirepeval_semantic_benchmark(root, ["fos", "mesh_descriptors"], per_dataset=8, seed=0,
                                                exclude={"19"})
    ids = [p.id for p in bench.papers]
    assert len(ids) == len(set(ids)) == 16 and bench.counts["per_dataset"] == {"fos": 8, "mesh_descriptors": 8}
    assert "19" not in ids and bench.counts["excluded_used_in_training"] == 1
    assert {p.domain for p in bench.papers} == {"fos", "mesh_descriptors"}
    assert set(bench.tasks) == {"title2abstract", "half2half", "query2paper"}
    c = bench.clustering
    assert (len(c.train_texts), len(c.test_texts)) == (12, 6)  # the official split; "999" has no text
    assert any("SciDocs MAG test paper without text" in i.message() for i in bench.issues)
    again = build_scirepeval_semantic_benchmark(root, ["fos", "mesh_descriptors"], per_dataset=8, seed=0,
                                                exclude={"19"})
    assert [p.id for p in again.papers] == ids
    results = _scored(BagOfWords(), bench)
    assert results["clustering"].counts["pool"] == 12 and results["title2abstract"].counts["pool"] == 16
    from fakes.models import build_tiny_bert

    words = {w for p in bench.papers for w in re.findall(r"[a-z0-9]+", (p.title + " " + p.abstract).lower())}
    model = build_tiny_bert(tmp_path / "tiny", sorted(words))
    result = CliRunner().invoke(app, ["eval", "run", "--kind", "semantic", str(root), "-m", str(model), "-o",
                                      str(tmp_path / "r"),
                                      "--set", "datasets=fos,mesh_descriptors", "--set", "sample=8"])
    assert result.exit_code == 0, result.output
    written = json.loads((tmp_path / "r" / "results.json").read_text())["benchmarks"]["scirepeval_semantic"]
    assert written["config"]["clustering"] == "SciDocs MAG official train/test split"
    assert written["counts"]["per_dataset"] == {"fos": 8, "mesh_descriptors": 8}
    with pytest.raises(BenchmarkError, match="nope"):
        build_scirepeval_semantic_benchmark(root, ["fos", "nope"])
