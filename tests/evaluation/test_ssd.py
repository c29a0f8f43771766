"""SciJEPA's singular spectrum deviation (SSD), as reconstructed from the paper's words (issue 32): 1 − H(p)/ln r
over the uncentred, row-normalised spectrum; 0 for a flat spectrum, 1 for collapse onto one direction."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sciembed.evaluation.contract import TripletTask
from sciembed.evaluation.execute import triplet_geometry
from sciembed.evaluation.geometry import singular_spectrum_deviation, spectrum


def test_a_flat_spectrum_deviates_by_zero():
    assert singular_spectrum_deviation(np.eye(16)) == pytest.approx(0.0, abs=1e-12)
    assert singular_spectrum_deviation(3.0 * np.eye(8)[:, :8]) == pytest.approx(0.0, abs=1e-12)  # row scale is gone
    rows = np.vstack([np.eye(4), -np.eye(4)])  # n > d: r = d, still flat
    assert singular_spectrum_deviation(rows) == pytest.approx(0.0, abs=1e-12)


def test_collapse_onto_one_direction_deviates_by_one():
    direction = np.random.default_rng(0).normal(size=32)
    rank1 = np.outer(np.arange(1, 51), direction)
    assert singular_spectrum_deviation(rank1) == pytest.approx(1.0, abs=1e-9)


def test_it_is_uncentred_and_moves_with_concentration():
    """A shared mean direction (a narrow cone) raises SSD; the centred isotropy does not see it."""
    rng = np.random.default_rng(1)
    spread = rng.normal(size=(400, 32))
    cone = spread + 8.0 * np.ones(32)
    low, high = singular_spectrum_deviation(spread), singular_spectrum_deviation(cone)
    assert 0.0 < low < 0.05 < 0.5 < high < 1.0
    assert spectrum(spread)["ssd"] == pytest.approx(low)
    squashed = spread * np.r_[np.ones(4), np.full(28, 0.05)]  # variance in 4 of 32 directions
    assert low < singular_spectrum_deviation(squashed) < high
    assert math.isnan(singular_spectrum_deviation(np.ones((1, 8))))


class _Scorer:
    """Vectors looked up by text (a DenseScorer stand-in)."""

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def embed(self, texts):
        return np.stack([self.vectors[t] for t in texts])


def test_triplet_geometry_reports_ssd_over_queries_positives_and_negatives():
    rng = np.random.default_rng(2)
    texts = {f"p{i}": f"text {i}" for i in range(30)}
    vectors = {t: rng.normal(size=16) for t in texts.values()}
    triplets = [(f"p{i}", f"p{i + 10}", f"p{i + 20}") for i in range(10)]
    geometry = triplet_geometry(TripletTask("cite", texts, triplets), _Scorer(vectors))
    stacked = np.stack([vectors[texts[x]] for column in range(3) for t in triplets for x in [t[column]]])
    assert geometry["ssd"] == pytest.approx(singular_spectrum_deviation(stacked))
    assert 0.0 <= geometry["ssd"] <= 1.0
