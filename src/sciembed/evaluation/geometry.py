"""Embedding-space geometry (Wang & Isola, 2020) and the singular-value spectrum.

All figures use L2-normalized embeddings, whatever metric the model retrieves with.

- **pair alignment**: mean squared distance ‖eₐ − e_b‖² between the TA embeddings
  of linked papers (Wang & Isola's L_align with α = 2; 0 = linked papers coincide,
  lower is better; on the unit sphere it equals 2 − 2·cos).
- **uniformity**: log mean exp(−2‖eᵢ − eⱼ‖²) over all pairs i < j of (at most)
  5,000 TA embeddings drawn with a seed (L_uniform with t = 2; lower = more spread,
  the floor is about −4 in high dimension).
- **intra-article alignment**: mean ‖e_TA − e_body‖² for the same paper, per body
  mode: how far the model moves a paper when it reads the body instead of the abstract.
- **spectrum**: singular values of the centred TA matrix; the share of variance in
  the top 1 / 5 / 10 / 50 principal components; and **isotropy**, defined here as
  the normalized effective rank exp(H(p)) / min(n − 1, d), where p is the variance
  share of each component and H its Shannon entropy (Roy & Vetterli, 2007). It is 1
  when variance is spread evenly over every direction the sample can span and
  tends to 1/min(n − 1, d) when one direction holds it all.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

UNIFORMITY_SAMPLE = 5000
TOP_COMPONENTS = (1, 5, 10, 50)


def l2_normalize(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


def alignment(a: np.ndarray, b: np.ndarray) -> float:
    """Mean ‖aᵢ − bᵢ‖² over rows (inputs normalized here)."""
    if len(a) == 0:
        return math.nan
    diff = l2_normalize(a) - l2_normalize(b)
    return float(np.mean(np.sum(diff * diff, axis=1)))


def uniformity(x: np.ndarray, sample: int = UNIFORMITY_SAMPLE, seed: int = 0, t: float = 2.0) -> float:
    """log mean over pairs i < j of exp(−t‖xᵢ − xⱼ‖²), on a seeded sample of rows."""
    n = len(x)
    if n < 2:
        return math.nan
    rows = np.sort(np.random.default_rng(seed).choice(n, size=sample, replace=False)) if n > sample else np.arange(n)
    z = l2_normalize(x[rows])
    m = len(z)
    total, count = 0.0, 0
    for start in range(0, m, 1024):  # blocks keep memory at 1024 × m; on the sphere exp(−t·d²) ≥ e^(−4t), no underflow
        gram = z[start : start + 1024] @ z.T
        upper = np.arange(m)[None, :] > np.arange(start, min(start + 1024, m))[:, None]
        total += float(np.exp(-t * (2.0 - 2.0 * gram))[upper].sum())
        count += int(upper.sum())
    return float(np.log(total / count))


def spectrum(x: np.ndarray, top: Sequence[int] = TOP_COMPONENTS) -> dict[str, Any]:
    """Singular values of the centred, normalized matrix; variance shares; isotropy."""
    z = l2_normalize(x)
    if len(z) < 2:
        return {"singular_values": [], "isotropy": math.nan, "top_share": {}}
    span = min(len(z) - 1, z.shape[1])
    s = np.linalg.svd(z - z.mean(axis=0), compute_uv=False)[:span]  # centring leaves at most n − 1 directions
    variance = s**2
    total = variance.sum()
    p = variance / total if total > 0 else variance
    nonzero = p[p > 0]
    effective_rank = float(np.exp(-(nonzero * np.log(nonzero)).sum())) if len(nonzero) else 0.0
    return {
        "singular_values": [float(v) for v in s],
        "top_share": {str(k): float(p[:k].sum()) for k in top if k <= len(p)},
        "effective_rank": effective_rank,
        "isotropy": effective_rank / span if span > 0 else math.nan,
    }


def citation_geometry(
    ta: Mapping[str, np.ndarray],
    pairs: Sequence[tuple[str, str]],
    body: Mapping[str, Mapping[str, np.ndarray]],
    seed: int = 0,
) -> dict[str, Any]:
    """All geometry figures for one model on a citation benchmark.

    `ta`: paper id -> TA embedding; `pairs`: linked paper ids; `body`: body mode ->
    paper id -> body embedding (papers without a body are simply absent).
    """
    ids = sorted(ta)
    matrix = np.stack([ta[i] for i in ids]) if ids else np.zeros((0, 0))
    usable = [(a, b) for a, b in pairs if a in ta and b in ta]
    out: dict[str, Any] = {
        "papers": len(ids),
        "pairs": len(usable),
        "pair_alignment": alignment(np.stack([ta[a] for a, _ in usable]), np.stack([ta[b] for _, b in usable]))
        if usable else math.nan,
        "uniformity": uniformity(matrix, seed=seed),
        "uniformity_sample": min(len(ids), UNIFORMITY_SAMPLE),
        "intra_article_alignment": {},
        "spectrum": spectrum(matrix),
    }
    for mode, vectors in sorted(body.items()):
        common = [i for i in ids if i in vectors]
        out["intra_article_alignment"][mode] = (
            alignment(np.stack([ta[i] for i in common]), np.stack([vectors[i] for i in common])) if common else math.nan
        )
    return out
