"""Out-of-core `index build --shard-papers`: `sciembed encode`'s store under the index, resumed after a kill without
encoding a paper twice, and the same index as an in-memory build."""

from __future__ import annotations

import numpy as np
import pytest

from sciembed.index.encode.run import encode_corpus
from sciembed.index.encode.store import VectorsError, iter_shard_tables
from sciembed.index.paper_index import build_paper_index, open_paper_index
from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Section


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
    out = tmp_path / "index"
    with pytest.raises(KeyboardInterrupt):
        build_paper_index(corpus, killed, "ta", out, shard_papers=5, show_progress=False)
    assert len(list((out / "shards").glob("shard-*.parquet"))) == 2  # two finished shards of 5 papers survive
    resumed = CountingEncoder()
    counts = build_paper_index(corpus, resumed, "ta", out, shard_papers=5, show_progress=False)
    assert len(killed.encoded) + len(resumed.encoded) == 23 and not set(killed.encoded) & set(resumed.encoded)
    assert (counts.read, counts.indexed, counts.rejected, counts.views) == (24, 23, 1, 23)
    assert sum(t.num_rows for t in iter_shard_tables(out / "shards")) == 23
    run = encode_corpus(corpus, out / "shards", kinds=["ta"], encoder=resumed, shard_papers=5, show_progress=False)
    assert run.resumed == run.shards == 5  # a third run encodes nothing
    with pytest.raises(VectorsError, match="other settings"):
        encode_corpus(corpus, out / "shards", kinds=["window"], encoder=resumed, shard_papers=5, show_progress=False)


def test_a_paper_without_the_view_is_indexed_by_its_title_and_abstract(tmp_path):
    """`ta_fallback` as in memory: papers without a body get their title+abstract in a section index."""
    papers = [Paper(id=f"p{i}", title=f"paper {i}", abstract=f"about topic {i}",
                    sections=(Section("Intro", f"words {i} " * 30),) if i % 3 else ()) for i in range(9)]
    (tmp_path / "corpus").mkdir()
    write_parquet(papers, tmp_path / "corpus" / "papers.parquet")
    mem = build_paper_index(tmp_path / "corpus", CountingEncoder(), "section", tmp_path / "mem", show_progress=False)
    sharded = build_paper_index(tmp_path / "corpus", CountingEncoder(), "section", tmp_path / "sharded",
                                shard_papers=4, show_progress=False)
    assert mem == sharded and (mem.indexed, mem.ta_fallback) == (6, 3)
    assert open_paper_index(tmp_path / "mem").index.dense.ids == open_paper_index(tmp_path / "sharded").index.dense.ids


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
