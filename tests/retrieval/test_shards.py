"""Out-of-core encoding: shards written as encoded, resumed after a kill without encoding a paper twice."""

from __future__ import annotations

import json

import numpy as np
import pytest

from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Section
from sciembed.retrieval.paper_index import build_paper_index, open_paper_index
from sciembed.retrieval.shards import encode_to_shards, iter_shards


class CountingEncoder:
    """A deterministic fake encoder that counts what it encodes and can fail after some calls."""

    name, fingerprint, max_seq_length, dim, metric = "fake", "fake-fp", 128, 8, "cosine"

    def __init__(self, fail_after: int | None = None) -> None:
        self.encoded: list[str] = []
        self.fail_after = fail_after

    def encode(self, texts, *, batch_size=32, show_progress=True):
        if self.fail_after is not None and len(self.encoded) >= self.fail_after:
            raise KeyboardInterrupt("killed")
        self.encoded += list(texts)
        out = np.array([[hash((t, i)) % 97 + 1 for i in range(self.dim)] for t in texts], dtype=np.float32)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def describe(self):
        return {"name": self.name, "fingerprint": self.fingerprint}


@pytest.fixture()
def corpus(tmp_path):
    papers = [Paper(id=f"p{i}", title=f"paper {i}", abstract=f"about topic {i % 7}",
                    sections=(Section("Intro", f"words {i} " * 50),)) for i in range(23)]
    papers.append(Paper(id="empty", title=""))  # no text: rejected, counted
    (tmp_path / "corpus").mkdir()
    write_parquet(papers, tmp_path / "corpus" / "papers.parquet")
    return tmp_path / "corpus"


def test_resume_after_a_kill_encodes_no_paper_twice(corpus, tmp_path):
    killed = CountingEncoder(fail_after=10)
    with pytest.raises(KeyboardInterrupt):
        encode_to_shards(corpus, killed, "ta", 100, tmp_path / "shards", shard_papers=5, show_progress=False)
    listing = json.loads((tmp_path / "shards" / "shards.json").read_text())
    assert len(listing["shards"]) == 2  # two finished shards of 5 papers survive the kill
    resumed = CountingEncoder()
    run = encode_to_shards(corpus, resumed, "ta", 100, tmp_path / "shards", shard_papers=5, show_progress=False)
    assert run.resumed == 2 and run.shards == 5
    assert len(killed.encoded) + len(resumed.encoded) == 23 and not set(killed.encoded) & set(resumed.encoded)
    assert run.counts.read == 24 and run.counts.indexed == 23 and run.counts.rejected == 1
    assert sum(len(ids) for ids, _ in iter_shards(tmp_path / "shards")) == 23
    with pytest.raises(ValueError, match="other settings"):
        encode_to_shards(corpus, resumed, "window", 100, tmp_path / "shards", shard_papers=5, show_progress=False)


@pytest.mark.parametrize("kind", ["flat", "hnsw", "ivf-pq"])
def test_sharded_build_gives_the_same_index_as_in_memory(corpus, tmp_path, kind):
    ann = {"nlist": 2, "pq_m": 4, "pq_bits": 4}  # 16 PQ centroids: trainable on 23 vectors
    build_paper_index(corpus, CountingEncoder(), "ta", tmp_path / "mem", index_kind=kind, ann=ann,
                      show_progress=False)
    build_paper_index(corpus, CountingEncoder(), "ta", tmp_path / "sharded", index_kind=kind, ann=ann,
                      shard_papers=4, show_progress=False)
    mem, sharded = open_paper_index(tmp_path / "mem"), open_paper_index(tmp_path / "sharded")
    assert mem.index.dense.kind == sharded.index.dense.kind == kind
    assert mem.index.dense.ids == sharded.index.dense.ids and mem.titles == sharded.titles
    query = mem.index.views_of("p3")
    assert mem.index.search(query, 5) == sharded.index.search(query, 5)  # same seeded training sample
    if kind != "ivf-pq":  # 4-bit PQ codes of 8-dim fake vectors are too coarse to promise the top hit
        assert mem.index.search(query, 5)[0][0][0] == "p3"
