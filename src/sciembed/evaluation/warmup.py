"""Compile ranx's numba kernels once into numba's on-disk cache (``make install`` runs this).

ranx compiles each metric kernel on first use (``@njit(cache=True)``), so a fresh install would pay tens of
seconds on its first ``sciembed eval``; this moves that cost to install time (figures: ``benchmarks/first_eval.py``).

    python -m sciembed.evaluation.warmup
"""

from __future__ import annotations

import time
import warnings


def warm_ranx() -> float:
    """Run every ranx metric and paired test sciembed reports once; returns the seconds it took."""
    from ranx.statistical_tests import fisher_randomization_test, paired_student_t_test

    from sciembed.evaluation.contract import RANKING_METRICS
    from sciembed.evaluation.metrics import ranx_scores, warm_up

    start = time.perf_counter()
    warm_up()  # the exact path `sciembed eval` takes (metrics.per_query_scores)
    names = sorted({*RANKING_METRICS, "precision@5", "precision@10", "precision@20", "recall@20"})
    names += [f"{m}-l2" for m in names if not m.startswith("ndcg")]  # thresholded variants share kernels
    ranx_scores({"q1": {"a": 2, "b": 1}, "q2": {"c": 1}},  # the same call (and id width) as every evaluation
                {"q1": {"b": 3.0, "a": 2.0, "x": 1.0}, "q2": {"c": 2.0, "y": 1.0}}, names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import numpy as np

        a, b = np.array([0.1, 0.5, 0.9]), np.array([0.2, 0.4, 1.0])
        paired_student_t_test(a, b)
        fisher_randomization_test(a, b, 10, 0.05, 0)
    return time.perf_counter() - start


if __name__ == "__main__":
    print(f"ranx kernels compiled and cached in {warm_ranx():.1f} s")
