"""Alignment, uniformity and the spectrum on point sets whose values are known in closed form."""

from __future__ import annotations

from math import exp, log

import numpy as np
import pytest

from sciembed.evaluation.geometry import alignment, spectrum, uniformity

E1, E2, E3 = np.eye(3)


def test_alignment_is_mean_squared_distance_after_normalizing() -> None:
    assert alignment(np.stack([E1, E2]), np.stack([5 * E1, E2])) == pytest.approx(0.0)
    assert alignment(np.stack([E1]), np.stack([E2])) == pytest.approx(2.0)
    assert alignment(np.stack([E1, E1]), np.stack([-E1, E2])) == pytest.approx((4 + 2) / 2)


def test_uniformity_closed_form() -> None:
    assert uniformity(np.stack([E1, -E1])) == pytest.approx(-8.0)
    # pairs: e1–e2 (d²=2), e1–(−e1) (d²=4), e2–(−e1) (d²=2)
    assert uniformity(np.stack([E1, E2, -E1])) == pytest.approx(log((2 * exp(-4) + exp(-8)) / 3))


def test_uniformity_samples_with_a_seed() -> None:
    x = np.random.default_rng(3).normal(size=(300, 8))
    full = uniformity(x, sample=5000)
    assert uniformity(x, sample=100, seed=1) == uniformity(x, sample=100, seed=1)
    assert uniformity(x, sample=100, seed=1) != uniformity(x, sample=100, seed=2)
    assert abs(uniformity(x, sample=100, seed=1) - full) < 0.3


def test_spectrum_isotropy_extremes() -> None:
    even = spectrum(np.stack([E1, -E1, E2, -E2]))
    assert even["top_share"]["1"] == pytest.approx(0.5)
    assert even["effective_rank"] == pytest.approx(2.0)
    # four points span at most 3 directions around their mean, here only 2 of them carry variance
    assert even["isotropy"] == pytest.approx(2 / 3)
    line = spectrum(np.stack([E1, -E1, E1, -E1]))
    assert line["top_share"]["1"] == pytest.approx(1.0)
    assert line["isotropy"] == pytest.approx(1 / 3)
    cloud = spectrum(np.random.default_rng(0).normal(size=(2000, 4)))
    assert cloud["isotropy"] > 0.95
