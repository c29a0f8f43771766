"""Fixtures for the evaluation tests: a fake encoder with hand-set vectors and a tiny built corpus.

The fake encoder maps a text to the vector of its first word (a key such as
``ta-A`` or ``body-A``), so each test knows every similarity by hand: vectors
sit on the unit circle at chosen angles, and cosine ranking = angular distance.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Section

# Test split: A–F have bodies, G has none. Links (undirected): A-C, A-E, B-F, D-G.
TA_ANGLES = {"A": 0, "B": 10, "C": 25, "D": 45, "E": 82, "F": 120, "G": 170}
BODY_ANGLES = {"A": 0, "B": 100, "C": 3, "D": 62, "E": 30, "F": 92}
LINKS = [("A", "C"), ("A", "E"), ("B", "F"), ("D", "G")]
DOMAINS = {"A": "cs", "B": "cs", "C": "cs", "D": "bio", "E": "bio", "F": "bio", "G": "bio"}


def unit(angle: float, dim: int = 3) -> np.ndarray:
    v = np.zeros(dim, dtype=np.float32)
    v[0], v[1] = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    return v


class FakeEncoder:
    """Implements the `Encoder` protocol; the vector of a text is the table entry of its first word."""

    def __init__(self, table: dict[str, np.ndarray], name: str = "fake", max_seq_length: int = 20,
                 metric: str = "cosine") -> None:
        self.table = table
        self.name = name
        self.max_seq_length = max_seq_length
        self.metric = metric
        self.dim = len(next(iter(table.values())))
        self.fingerprint = f"fake:{name}:{max_seq_length}"
        self.calls: list[int] = []  # number of texts per encode() call

    def key(self, text: str) -> str:
        first = text.split()[0] if text.split() else ""
        return re.sub(r"[^\w-]", "", first)

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool = True) -> np.ndarray:
        self.calls.append(len(texts))
        rows = [self.table.get(self.key(t), unit(270)) for t in texts]
        return np.stack(rows).astype(np.float32) if rows else np.zeros((0, self.dim), np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def citation_table() -> dict[str, np.ndarray]:
    table = {f"ta-{p}": unit(a) for p, a in TA_ANGLES.items()}
    table.update({f"body-{p}": unit(a) for p, a in BODY_ANGLES.items()})
    return table


def make_paper(pid: str, with_body: bool = True) -> Paper:
    """Title = the TA key; one body section whose heading is the body key, 40 words long."""
    sections = ()
    if with_body:
        words = " ".join(f"w{pid}{i}" for i in range(40))
        sections = (Section(heading=f"body-{pid} Methods", text=f"We describe {words}."),)
    return Paper(id=pid, title=f"ta-{pid} study", abstract=f"Abstract of paper {pid} in detail.", sections=sections,
                 domain=DOMAINS.get(pid))


def write_corpus(root: Path, papers: list[Paper], splits: dict[str, str], pairs: list[tuple[str, str]],
                 domains: dict[str, str] | None = None, anchors: set[str] | None = None) -> Path:
    """A built corpus directory exactly as `sciembed.corpus.layout` documents it."""
    root.mkdir(parents=True, exist_ok=True)
    write_parquet(papers, root / "papers.parquet")
    domains = domains or {}
    ids = sorted(splits)
    columns = {"paper_id": ids, "split": [splits[i] for i in ids], "domain": [domains.get(i) for i in ids]}
    if anchors is not None:  # corpora built since anchors are recorded; without: the pre-anchor layout
        columns["anchor"] = [i in anchors for i in ids]
    pq.write_table(pa.table(columns), root / "splits.parquet")
    rows = [(min(a, b), max(a, b)) for a, b in pairs]
    pq.write_table(pa.table({
        "paper_a": [a for a, _ in rows], "paper_b": [b for _, b in rows],
        "domain": [domains.get(a) for a, _ in rows],
        "split": [splits[a] if splits.get(a) == splits.get(b) else "cross" for a, b in rows],
    }), root / "pairs.parquet")
    return root


@pytest.fixture
def citation_corpus(tmp_path: Path) -> Path:
    papers = [make_paper(p, with_body=p != "G") for p in TA_ANGLES] + [make_paper("T1"), make_paper("T2")]
    splits = {p: "test" for p in TA_ANGLES} | {"T1": "train", "T2": "train"}
    pairs = [*LINKS, ("T1", "T2"), ("T1", "A")]  # the last pair crosses splits and must not count
    return write_corpus(tmp_path / "corpus", papers, splits, pairs, DOMAINS | {"T1": "cs", "T2": "cs"})


@pytest.fixture
def anchored_corpus(tmp_path: Path) -> Path:
    """The test split above with anchors recorded: A seeded {A, C, E}, D seeded {D, G}; B–F joins two members."""
    papers = [make_paper(p, with_body=p != "G") for p in TA_ANGLES]
    return write_corpus(tmp_path / "anchored", papers, {p: "test" for p in TA_ANGLES}, LINKS, DOMAINS,
                        anchors={"A", "D"})


@pytest.fixture
def corpus_writer():
    """`write_corpus(root, papers, splits, pairs, domains)` for tests that bring their own papers."""
    return write_corpus


@pytest.fixture
def fake_encoder() -> FakeEncoder:
    return FakeEncoder(citation_table())


@pytest.fixture
def angle_encoder():
    """Factory: an encoder whose first-word keys sit at the given angles (degrees)."""

    def make(angles: dict[str, float], **kwargs) -> FakeEncoder:
        return FakeEncoder({key: unit(a) for key, a in angles.items()}, **kwargs)

    return make


@pytest.fixture(scope="session", autouse=True)
def ranx_compiled() -> float:
    """Compile ranx's numba kernels once per session (seconds; near zero once the disk cache is warm)."""
    from sciembed.evaluation.metrics import warm_up

    return warm_up()


@pytest.fixture
def score_scenarios():
    """`evaluation.evaluate` on a built benchmark's scenarios, as ``eval suite`` scores them: task -> result."""

    def score(model, bench, *, geometry: bool = False, **options):
        from sciembed.evaluation import evaluate, scenario_benchmark

        cell = evaluate(model, scenario_benchmark(bench, geometry=geometry, **options), show_progress=False)
        return {r.task: r for r in cell.results}

    return score
