"""A lexical hashing encoder (bag of words -> fixed random directions) and tiny full-text papers."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pytest

from sciembed.papers.model import Paper, Section, SectionRole


class HashingEncoder:
    """Deterministic, offline, and lexical: texts sharing words get similar vectors."""

    def __init__(self, dim: int = 64, metric: str = "cosine") -> None:
        self.name, self.dim, self.metric, self.max_seq_length = "hashing", dim, metric, 512
        self.fingerprint = f"hashing-{dim}-{metric}"
        self.calls = 0

    def _word(self, word: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(word.encode()).digest()[:8], "big")
        return np.random.default_rng(seed).normal(size=self.dim)

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool = True) -> np.ndarray:
        self.calls += 1
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i] += self._word(word.strip(".,:;"))
        out += 1e-6
        if self.metric == "cosine":
            out /= np.linalg.norm(out, axis=1, keepdims=True)
        return out

    def count_tokens(self, text: str) -> int:
        return len(text.split())


def paper(pid: str, topic: str, title: str | None = None, body: bool = True) -> Paper:
    words = topic.split()
    sentence = lambda kind: " ".join(f"{kind} {w} {w}." for w in words)  # noqa: E731
    sections = (
        Section("1 Introduction", f"We study {topic}. " + sentence("Motivation"), SectionRole.INTRODUCTION),
        Section("2 Method", f"Our method for {topic} uses a model. " + sentence("Method"), SectionRole.METHOD),
        Section("3 Experiments", f"Results on {topic} benchmarks. " + sentence("Result"), SectionRole.RESULTS),
        Section("4 Conclusion", f"We conclude {topic} works. " + sentence("Finally"), SectionRole.CONCLUSION),
    ) if body else ()
    return Paper(id=pid, title=title or f"A paper on {topic}", abstract=f"This abstract is about {topic}.",
                 sections=sections)


@pytest.fixture
def encoder() -> HashingEncoder:
    return HashingEncoder()
