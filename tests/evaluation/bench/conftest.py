"""Fixtures for the Benchmark-contract tests: the released-layout fixtures and a keyword encoder."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ANGLES = {"alpha": 0.0, "beta": 100.0, "gamma": 200.0, "delta": 290.0}


def unit(angle: float) -> np.ndarray:
    return np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle)), 0.0], dtype=np.float32)


class KeywordEncoder:
    """Implements the `Encoder` protocol; unknown first words get a fixed off-plane vector."""

    metric = "cosine"
    max_seq_length = 64
    dim = 3

    def __init__(self, table: dict[str, np.ndarray] | None = None, name: str = "keyword") -> None:
        self.table = table if table is not None else {k: unit(a) for k, a in ANGLES.items()}
        self.name = name
        self.fingerprint = f"keyword:{name}"
        self.calls: list[int] = []

    def encode(self, texts: Sequence[str], *, batch_size: int = 32, show_progress: bool = True) -> np.ndarray:
        self.calls.append(len(texts))
        out = []
        for text in texts:
            words = re.findall(r"[\w-]+", text.lower())
            out.append(next((self.table[w] for w in words if w in self.table), np.array([0, 0, 1], np.float32)))
        return np.stack(out).astype(np.float32) if out else np.zeros((0, 3), np.float32)

    def count_tokens(self, text: str) -> int:
        return len(text.split())


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def keyword_encoder() -> KeywordEncoder:
    return KeywordEncoder()
