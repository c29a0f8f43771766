"""Shared by the encode tests: slices of the real ACL TEI papers, a tiny random BERT over their words."""

from __future__ import annotations

import collections
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fakes.models import build_tiny_bert
from sciembed.corpus.layout import CorpusDir


class EncodeHelpers:
    def __init__(self, shared_data: Path) -> None:
        self.shared_data = shared_data

    def link_tei(self, folder: Path, n: int) -> Path:
        """Symbolic links to the first `n` ACL TEI papers (sorted) in `folder`; volumes' front matter
        (``D14-1000``: paper 0, rejected as `front_matter`) is no paper and left out."""
        folder.mkdir(parents=True, exist_ok=True)
        papers = [p for p in sorted((self.shared_data / "acl-grobid" / "tei").iterdir())
                  if not p.name.split(".")[0].endswith("000")]
        for path in papers[:n]:
            (folder / path.name).symlink_to(path)
        return folder

    @staticmethod
    def tiny_model(corpus: Path, root: Path) -> Path:
        """A random-init BERT (64 positions) whose vocabulary is the corpus's 2,000 commonest title/abstract words."""
        words = collections.Counter(w.strip(".,;:()").lower() for p in CorpusDir(corpus).iter_papers()
                                    for w in f"{p.title} {p.abstract}".split())
        return build_tiny_bert(root, [w for w, _ in words.most_common(2000)], max_position_embeddings=64)

    @staticmethod
    @contextmanager
    def one_thread() -> Iterator[None]:
        """torch on one thread, as in a CPU actor of one CPU: float sums then round alike, bit for bit."""
        import torch

        before = torch.get_num_threads()
        torch.set_num_threads(1)
        try:
            yield
        finally:
            torch.set_num_threads(before)

    @staticmethod
    def shard_tables(vectors: Path) -> dict[str, pa.Table]:
        return {p.name: pq.read_table(p) for p in sorted(vectors.glob("shard-*.parquet"))}


@pytest.fixture(scope="session")
def helpers(shared_data) -> EncodeHelpers:
    return EncodeHelpers(shared_data)
