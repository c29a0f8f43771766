"""A constant encoder scores what random vectors score on every benchmark kind — never the best.

Every text gets the same vector, so every candidate ties with every other. Ties once counted for the
gold candidate (gold rank 1 + strictly better, ties broken by id, cuts at k + 1 left to faiss row
order): a collapsed model looked perfect. Each kind runs here through the suite's one path
(`load_benchmark` + `compute_cell`) with a constant encoder and with a few seeded random encoders; the
constant one must land within the random ones' spread of their mean, and below the best score.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sciembed.evaluation.bench.runner import compute_cell
from sciembed.evaluation.benchmarks.registry import BENCHMARKS, BenchmarkEntry, LoadContext, load_benchmark
from sciembed.evaluation.scorers import DenseScorer
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Section, SectionRole

N_PAPERS = 60
RANDOM_SEEDS = range(6)
DIM = 16
SCIFULLBENCH = Path(__file__).parent / "data" / "scifullbench"


class ConstantEncoder:
    """Every text -> the same vector (a collapsed model)."""

    metric = "cosine"
    max_seq_length = 64
    dim = DIM
    name = fingerprint = "constant"

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool = True) -> np.ndarray:
        return np.ones((len(texts), DIM), np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


class RandomEncoder(ConstantEncoder):
    """Every distinct text -> its own seeded Gaussian vector: a random ranking, the chance reference."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.name = self.fingerprint = f"random-{seed}"

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool = True) -> np.ndarray:
        rows = []
        for text in texts:
            digest = hashlib.blake2b(f"{self.seed}:{text}".encode(), digest_size=8).digest()
            rows.append(np.random.default_rng(int.from_bytes(digest, "little")).normal(size=DIM))
        return np.asarray(rows, np.float32).reshape(len(texts), DIM)


def _corpus(root: Path) -> Path:
    """60 test-split papers with introduction / method / results sections, linked in a ring (+7), citing +1, +3."""
    ids = [f"p{i:02d}" for i in range(N_PAPERS)]
    roles = (SectionRole.INTRODUCTION, SectionRole.METHOD, SectionRole.RESULTS)
    papers = [Paper(id=pid, title=f"Title of paper {pid} on topic {i % 7}",
                    abstract=f"Abstract {pid}. We study topic {i % 7} with method {i % 5}. It works well.",
                    sections=tuple(Section(f"{r.value} of {pid}", f"Section {r.value} text of paper {pid} with "
                                           f"words about topic {i % 7}. Another sentence follows here.", r)
                                   for r in roles),
                    domain=f"d{i % 3}") for i, pid in enumerate(ids)]
    root.mkdir(parents=True)
    write_parquet(papers, root / "papers.parquet")
    pq.write_table(pa.table({"paper_id": ids, "split": ["test"] * N_PAPERS, "domain": [p.domain for p in papers]}),
                   root / "splits.parquet")
    pairs = sorted({tuple(sorted((ids[i], ids[(i + s) % N_PAPERS]))) for i in range(N_PAPERS) for s in (1, 7)})
    pq.write_table(pa.table({"paper_a": [a for a, _ in pairs], "paper_b": [b for _, b in pairs],
                             "domain": ["d0"] * len(pairs), "split": ["test"] * len(pairs)}), root / "pairs.parquet")
    cites = [(ids[i], ids[(i + s) % N_PAPERS]) for i in range(N_PAPERS) for s in (1, 3)]
    pq.write_table(pa.table({"citing": [a for a, _ in cites], "cited": [b for _, b in cites],
                             "split": ["test"] * len(cites)}), root / "citations.parquet")
    (root / "manifest.json").write_text(json.dumps({}))
    return root


def _triplets(path: Path, n: int = 200) -> Path:
    """`n` (query, positive, negative) triplets of distinct papers, in the JSONL layout `load_triplets` reads."""
    def paper(tag: str, i: int) -> dict[str, str]:
        return {"paper_id": f"{tag}{i}", "title": f"{tag} title {i}", "abstract": f"{tag} abstract {i}"}

    path.write_text("".join(json.dumps({"query": paper("q", i), "pos": paper("p", i), "neg": paper("n", i)}) + "\n"
                            for i in range(n)))
    return path


def _headline(kind: str) -> str:
    return BENCHMARKS[kind].headline


def _score(kind: str, bench: object, encoder: ConstantEncoder) -> float:
    """The kind's headline metric, averaged over the cell's tasks that report it."""
    cell = compute_cell(encoder.name, "b", "k", bench, DenseScorer(encoder, show_progress=False), keep_going=False)
    values = [r.metrics[_headline(kind)] for r in cell.results if _headline(kind) in r.metrics]
    assert values, (kind, [r.metrics for r in cell.results])
    return float(np.mean(values))


ENTRIES = {
    "citation": lambda corpus: {"path": str(corpus), "scenarios": ["ta_ta", "body_body"]},
    "section_retrieval": lambda corpus: {"path": str(corpus)},
    "semantic": lambda corpus: {"path": str(corpus), "sample": N_PAPERS},
    "paper_to_paper": lambda corpus: {"path": str(corpus), "methods": ["a2a", "late", "max_sim", "bm25"]},
    "scifullbench": lambda corpus: {"path": str(SCIFULLBENCH), "methods": ["a2a", "late", "max_sim"]},
    "triplets": lambda corpus: {"path": str(_triplets(corpus.parent / "triplets.jsonl"))},
}
LOWER_IS_BETTER = {"mean_rank"}
BEST = {"mean_rank": 1.0}


@pytest.mark.parametrize("kind", sorted(ENTRIES))
def test_a_constant_encoder_scores_at_chance(tmp_path: Path, kind: str) -> None:
    corpus = _corpus(tmp_path / "corpus")
    entry = BenchmarkEntry(name="b", kind=kind, **ENTRIES[kind](corpus))
    bench = load_benchmark(entry, LoadContext(tmp_path / "work"))
    constant = _score(kind, bench, ConstantEncoder())
    chance = [_score(kind, bench, RandomEncoder(seed)) for seed in RANDOM_SEEDS]
    mean, spread = statistics.mean(chance), statistics.stdev(chance)
    metric = _headline(kind)
    best = BEST.get(metric, 100.0)
    assert constant != best, f"{kind}: a constant encoder reaches the best {metric} ({best})"
    if metric in LOWER_IS_BETTER:
        assert constant > min(chance), (kind, constant, chance)
    tolerance = 4 * spread + 0.02 * abs(best - mean)
    assert abs(constant - mean) <= tolerance, f"{kind} {metric}: constant {constant:.2f}, random {chance}"


def test_a_constant_encoder_probes_at_chance() -> None:
    """A linear probe on one point predicts one class: about 1 / classes accuracy, as random vectors give."""
    from sciembed.evaluation.contract import ProbeTask
    from sciembed.evaluation.execute import run_task

    ids = [f"x{i:03d}" for i in range(150)]
    labels = {x: i % 3 for i, x in enumerate(ids)}
    task = ProbeTask("probe", "classification", {x: f"text {x}" for x in ids}, labels, ids[:90], ids[90:],
                     "accuracy")
    constant = run_task(task, DenseScorer(ConstantEncoder(), show_progress=False)).metrics["accuracy"]
    chance = [run_task(task, DenseScorer(RandomEncoder(s), show_progress=False)).metrics["accuracy"]
              for s in RANDOM_SEEDS]
    assert abs(constant - 100 / 3) < 5 and abs(statistics.mean(chance) - 100 / 3) < 10


def test_a_constant_encoder_gets_the_chance_gold_rank() -> None:
    """A gold-rank task: every candidate tied, the gold sits on average in the middle of the pool, (n + 1) / 2."""
    from sciembed.evaluation.contract import GoldRankTask
    from sciembed.evaluation.execute import run_task

    n = 40
    task = GoldRankTask("t2a", {f"q{i:02d}": f"title {i}" for i in range(n)},
                        {f"c{i:02d}": f"abstract {i}" for i in range(n)}, {f"q{i:02d}": f"c{i:02d}" for i in range(n)})
    constant = run_task(task, DenseScorer(ConstantEncoder(), show_progress=False))
    assert constant.kind == "gold_rank" and constant.score == (n + 1) / 2
    assert set(constant.per_query["rank"].values()) == {(n + 1) / 2} and constant.counts == {"queries": n, "pool": n}
    chance = [run_task(task, DenseScorer(RandomEncoder(s), show_progress=False)).score for s in RANDOM_SEEDS]
    assert abs(statistics.mean(chance) - (n + 1) / 2) < 6
