"""Tiny built corpora and a tiny random-init BERT, made inside the tests (no network, no downloads)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import SimpleNamespace

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Section, SectionRole

TOPICS = 6
WORDS_PER_TOPIC = 24
COMMON = [f"c{i}" for i in range(40)]
HEADINGS = [
    ("introduction", SectionRole.INTRODUCTION),
    ("method", SectionRole.METHOD),
    ("results", SectionRole.RESULTS),
    ("conclusion", SectionRole.CONCLUSION),
]
PREFIX_WORDS = ["[", "]", "ta", "body"]


def topic_words(topic: int) -> list[str]:
    return [f"t{topic}w{i}" for i in range(WORDS_PER_TOPIC)]


def vocabulary() -> list[str]:
    words = [w for t in range(TOPICS) for w in topic_words(t)]
    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", ".", ","]
    return [*specials, *PREFIX_WORDS, *COMMON, *words, *(h for h, _ in HEADINGS)]


def _text(rng: random.Random, topic: int, n: int) -> str:
    own = topic_words(topic)
    return " ".join(rng.choice(own) if rng.random() < 0.6 else rng.choice(COMMON) for _ in range(n))


def make_papers(n: int, seed: int = 0, ta_only_every: int = 7) -> list[Paper]:
    """`n` papers over `TOPICS` topics; every `ta_only_every`-th paper has no body."""
    rng = random.Random(seed)
    papers = []
    for i in range(n):
        topic = i % TOPICS
        sections: tuple[Section, ...] = ()
        if i % ta_only_every != ta_only_every - 1:
            count = rng.randint(1, 4)
            sections = tuple(
                Section(heading=h, text=_text(rng, topic, rng.randint(20, 60)), role=role)
                for h, role in HEADINGS[:count]
            )
        papers.append(
            Paper(
                id=f"p{i:03d}",
                title=_text(rng, topic, 5),
                abstract=_text(rng, topic, 25),
                sections=sections,
                domain=f"topic{topic}",
            )
        )
    return papers


def write_built_corpus(
    root: Path, papers: list[Paper], splits: dict[str, str], pairs_per_paper: int = 3, seed: int = 0
) -> Path:
    """papers.parquet, splits.parquet, pairs.parquet, manifest.json as `sciembed.corpus.layout` documents.

    Pairs join papers of the same topic and split (zero overlap across splits).
    """
    root.mkdir(parents=True, exist_ok=True)
    write_parquet(papers, root / "papers.parquet")
    rng = random.Random(seed)
    by_group: dict[tuple[str, str], list[str]] = {}
    for p in papers:
        by_group.setdefault((p.domain or "", splits[p.id]), []).append(p.id)
    pairs: set[tuple[str, str]] = set()
    for _, ids in sorted(by_group.items()):
        for pid in ids:
            for other in rng.sample(ids, min(pairs_per_paper, len(ids))):
                if other != pid:
                    pairs.add((min(pid, other), max(pid, other)))
    domain = {p.id: p.domain for p in papers}
    rows = sorted(pairs)
    pq.write_table(
        pa.table(
            {
                "paper_a": [a for a, _ in rows],
                "paper_b": [b for _, b in rows],
                "domain": [domain[a] for a, _ in rows],
                "split": [splits[a] for a, _ in rows],
            }
        ),
        root / "pairs.parquet",
    )
    ids = [p.id for p in papers]
    pq.write_table(
        pa.table({"paper_id": ids, "split": [splits[i] for i in ids], "domain": [domain[i] for i in ids]}),
        root / "splits.parquet",
    )
    (root / "manifest.json").write_text(json.dumps({"schema_version": 1, "papers": len(papers)}))
    return root


def default_splits(papers: list[Paper]) -> dict[str, str]:
    """About 2/3 train, 1/6 val, 1/6 test, balanced over topics."""
    out = {}
    for i, p in enumerate(papers):
        k = (i // TOPICS) % 6
        out[p.id] = "val" if k == 4 else "test" if k == 5 else "train"
    return out


@pytest.fixture(scope="session")
def tiny_corpus(tmp_path_factory) -> Path:
    papers = make_papers(72)
    return write_built_corpus(tmp_path_factory.mktemp("corpus"), papers, default_splits(papers))


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    """A 2-layer, 32-dim BERT with random weights and a vocabulary of the corpus words."""
    import torch
    from transformers import BertConfig, BertModel, BertTokenizerFast

    root = tmp_path_factory.mktemp("tiny-bert")
    vocab = root / "vocab.txt"
    vocab.write_text("\n".join(vocabulary()) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(vocabulary()),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=128,
    )
    BertModel(config).save_pretrained(root)
    tokenizer.save_pretrained(root)
    return root


@pytest.fixture(scope="session")
def kit() -> SimpleNamespace:
    """The corpus helpers, for tests that build their own (possibly broken) corpora."""
    return SimpleNamespace(
        make_papers=make_papers, write_built_corpus=write_built_corpus, default_splits=default_splits
    )
