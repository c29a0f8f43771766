"""Paired significance between two models' per-query scores (ranx's tests).

The report and ``sciembed compare`` both use this one function, so a p-value means the same thing everywhere.
Only queries scored by both sides are paired; the count is returned with the result.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

TESTS = ("student", "fisher")


@dataclass(frozen=True)
class PairedResult:
    metric: str
    mean_a: float
    mean_b: float
    p_value: float
    n: int  # paired queries
    test: str

    @property
    def delta(self) -> float:
        return self.mean_b - self.mean_a

    def significant(self, max_p: float) -> bool:
        return self.p_value <= max_p


def paired_test(metric: str, scores_a: Mapping[str, float], scores_b: Mapping[str, float], test: str = "student",
                n_permutations: int = 1000, seed: int = 42) -> PairedResult:
    """Two-sided paired test of B against A on their common queries: ``student`` is ranx's paired t-test,
    ``fisher`` its randomization test (seeded, `n_permutations` draws). Identical score vectors give p = 1."""
    from ranx.statistical_tests import fisher_randomization_test, paired_student_t_test

    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}; expected one of {', '.join(TESTS)}")
    common = sorted(set(scores_a) & set(scores_b))
    a = np.array([scores_a[q] for q in common], dtype=np.float64)
    b = np.array([scores_b[q] for q in common], dtype=np.float64)
    mean_a = float(a.mean()) if len(a) else math.nan
    mean_b = float(b.mean()) if len(b) else math.nan
    if len(common) < 2 or np.array_equal(a, b):
        p_value = 1.0 if len(common) >= 2 else math.nan
    elif test == "student":
        with warnings.catch_warnings():  # constant differences make scipy warn; the p-value is still defined
            warnings.simplefilter("ignore", RuntimeWarning)
            p_value, _ = paired_student_t_test(a, b)
        p_value = float(p_value) if not math.isnan(p_value) else 0.0  # constant non-zero difference
    else:
        p_value, _ = fisher_randomization_test(a, b, n_permutations, 0.05, seed)
        p_value = float(p_value)
    return PairedResult(metric, mean_a, mean_b, float(p_value), len(common), test)
