"""The scikit-learn probes: determinism with a seed, one clear error for a single-class fold."""

from __future__ import annotations

import numpy as np
import pytest

from sciembed.evaluation.contract import ProbeTask
from sciembed.evaluation.probes import ProbeError, run_probe


def _task(labels: dict[str, object], train: list[str], test: list[str], **kw) -> ProbeTask:
    return ProbeTask("t", kw.pop("kind", "classification"), {i: i for i in labels}, labels, train, test,
                     kw.pop("metric", "f1_macro"), **kw)


def _vectors(n: int, seed: int = 0) -> tuple[dict[str, np.ndarray], dict[str, object]]:
    rng = np.random.default_rng(seed)
    vectors, labels = {}, {}
    for i in range(n):
        label = i % 3
        vectors[f"p{i}"] = rng.normal(size=8) + 2.0 * np.eye(8)[label]  # noisy but learnable
        labels[f"p{i}"] = label
    return vectors, labels


def test_classification_probe_is_deterministic_with_a_seed():
    vectors, labels = _vectors(90)
    ids = sorted(labels, key=lambda x: int(x[1:]))
    task = _task(labels, ids[:60], ids[60:], few_shot=((9, 3),))
    first, second = run_probe(task, vectors), run_probe(task, vectors)
    assert first == second
    assert 50 < first["f1_macro"] <= 100 and "f1_macro@9shot" in first


def test_multilabel_few_shot_is_seeded():
    vectors, labels = _vectors(60)
    multi = {k: [v, "even"] if int(k[1:]) % 2 == 0 else [v] for k, v in labels.items()}
    ids = sorted(multi, key=lambda x: int(x[1:]))
    task = _task(multi, ids[:40], ids[40:], multi_label=True, few_shot=((5, 2),), seed=7)
    assert run_probe(task, vectors) == run_probe(task, vectors)


def test_single_class_training_set_is_one_clear_error():
    vectors, _ = _vectors(12)
    labels = {k: "only" for k in vectors}
    ids = sorted(labels)
    with pytest.raises(ProbeError, match="single class"):
        run_probe(_task(labels, ids[:8], ids[8:]), vectors)


def test_regression_probe_kendall_tau():
    rng = np.random.default_rng(1)
    vectors = {f"p{i}": rng.normal(size=4) for i in range(60)}
    targets = {k: float(v[0] * 3 + 0.1 * rng.normal()) for k, v in vectors.items()}
    ids = sorted(vectors)
    out = run_probe(_task(targets, ids[:40], ids[40:], kind="regression", metric="kendalltau"), vectors)
    assert out["kendalltau"] > 70 and set(out) == {"kendalltau", "pearsonr"}
