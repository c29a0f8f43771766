"""Alignment, uniformity and the spectrum on point sets whose values are known in closed form."""

from __future__ import annotations

from math import exp, log

import numpy as np
import pytest

from sciembed.evaluation.geometry import (
    alignment,
    citation_geometry,
    cosine_alignment,
    cosine_uniformity,
    spectrum,
    uniformity,
)

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


def test_paper_figures_follow_the_s2full_formulas() -> None:
    """Alignment = mean (1 − cos) of linked TA pairs; uniformity = log mean exp(−2·d²), d = 1 − cos;
    intra-article = mean (1 − cos) between a paper's TA and its body vector."""
    c60 = np.array([0.5, np.sqrt(3) / 2, 0.0])  # 60° from e1: d = 0.5
    ta = {"a": E1, "b": 3 * c60, "c": -E1, "d": E2}
    body = {"windowed": {"a": E2, "b": c60, "c": -E1}}  # d = 1, 0, 0
    g = citation_geometry(ta, [("a", "b"), ("a", "c"), ("x", "a")], body)
    assert g["pairs"] == 2  # the pair naming an unknown paper is not used
    assert g["pair_alignment"] == pytest.approx((0.5 + 2.0) / 2)
    assert g["wang_isola_alignment"] == pytest.approx((1.0 + 4.0) / 2)  # ‖a − b‖² = 2d
    assert g["intra_article_alignment"]["windowed"] == pytest.approx((1 + 0 + 0) / 3)
    # cosine distances over the 6 pairs of a, b, c, d: ab .5, ac 2, ad 1, bc 1.5, bd 1 − √3/2, cd 1
    d = [0.5, 2.0, 1.0, 1.5, 1 - np.sqrt(3) / 2, 1.0]
    assert g["uniformity"] == pytest.approx(log(np.mean([exp(-2 * x * x) for x in d])))
    assert cosine_uniformity(np.stack([E1, -E1])) == pytest.approx(-8.0)  # d = 2: exp(−2·4)
    assert cosine_alignment(np.stack([E1]), np.stack([E2])) == pytest.approx(1.0)
