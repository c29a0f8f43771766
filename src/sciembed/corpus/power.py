"""How small a difference a split's queries can show: the minimum detectable effect of a paired t-test.

For n paired per-query scores whose differences have standard deviation sd, a two-sided paired t-test at level
alpha detects ``mde = (z[1 - alpha/2] + z[power]) * sd / sqrt(n)`` with the given power (the normal
approximation; t quantiles give 2% more at 48 queries, under 0.5% from 200 on).

`PAIRED_SD_NDCG10` is measured: per-query NDCG@10 differences between base MiniLM and BM25 on the real ACL
corpus's val split (299 queries, 256 tokens) have SD 0.265 (TA→TA), 0.300 (Body→TA) and 0.300 (Body→Body); the
larger is used, a conservative bound for two close models.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

ALPHA = 0.05
POWER = 0.8
PAIRED_SD_NDCG10 = 0.30  # see the module docstring


@dataclass(frozen=True)
class DetectableDifference:
    queries: int
    points: float | None  # NDCG@10 x 100; None below 2 queries
    alpha: float = ALPHA
    power: float = POWER
    sd: float = PAIRED_SD_NDCG10

    def sentence(self, split: str = "test") -> str:
        if self.points is None:
            return f"{split}: {self.queries} anchor queries: too few for a paired test"
        return (f"{split}: {self.queries:,} anchor queries; a paired t-test (alpha {self.alpha:g}, "
                f"power {self.power:g}) detects a difference of {self.points:.1f} NDCG@10 points, "
                f"assuming a per-query SD of paired differences of {self.sd * 100:.0f} points "
                "(measured: MiniLM vs BM25 on ACL val)")


def detectable_difference(queries: int, sd: float = PAIRED_SD_NDCG10, alpha: float = ALPHA,
                          power: float = POWER) -> DetectableDifference:
    """The smallest true mean difference (NDCG@10 x 100) the paired test finds with `power` over `queries`."""
    if queries < 2:
        return DetectableDifference(queries, None, alpha, power, sd)
    z = NormalDist().inv_cdf
    points = (z(1 - alpha / 2) + z(power)) * sd / math.sqrt(queries) * 100
    return DetectableDifference(queries, round(float(points), 2), alpha, power, sd)
