"""Embedding-space geometry as the S2Full paper defines it, Wang & Isola's (2020), and the spectrum.

All figures use L2-normalized embeddings, whatever metric the model retrieves with.
The paper's figures use the cosine distance d = 1 − cos:

- **pair alignment** (`pair_alignment`): mean d(eₐ, e_b) over the TA embeddings of
  linked papers (0 = linked papers coincide; lower is better).
- **uniformity** (`uniformity`): log mean exp(−2·d²) over all pairs i < j of (at most)
  5,000 TA embeddings drawn with a seed (lower = more spread).
- **intra-article alignment** (`intra_article_alignment`): mean d(e_TA, e_body) for the
  same paper, per body mode: how far the model moves a paper when it reads the body
  instead of the abstract.

Wang & Isola's squared-Euclidean versions are kept as separately named figures
(`wang_isola_*`): L_align = mean ‖eₐ − e_b‖² (= 2·d on the sphere), L_uniform =
log mean exp(−2‖eᵢ − eⱼ‖²) (the floor is about −4 in high dimension), and the
intra-article mean ‖e_TA − e_body‖².
- **spectrum**: singular values of the centred TA matrix, the variance share of the top 1 / 5 / 10 / 50
  principal components, and **isotropy**, the normalized effective rank exp(H(p)) / min(n − 1, d) with p the
  variance shares (Roy & Vetterli, 2007): 1 when variance is spread evenly, → 1/min(n − 1, d) on one direction.
- **SSD** (`singular_spectrum_deviation`), SciJEPA's Fig. 2, **a reconstruction** (the paper defines it only
  in words; see docs/fidelity.md): 1 − H(p) / ln min(n, d) over the **uncentred**, row-normalised matrix, so a
  shared mean direction (a narrow cone) counts as concentration; the centred variant is `spectrum`'s isotropy.
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
    """Wang & Isola: mean ‖aᵢ − bᵢ‖² over rows (inputs normalized here)."""
    if len(a) == 0:
        return math.nan
    diff = l2_normalize(a) - l2_normalize(b)
    return float(np.mean(np.sum(diff * diff, axis=1)))


def cosine_alignment(a: np.ndarray, b: np.ndarray) -> float:
    """S2Full: mean cosine distance 1 − cos(aᵢ, bᵢ) over rows."""
    if len(a) == 0:
        return math.nan
    return float(np.mean(1.0 - np.sum(l2_normalize(a) * l2_normalize(b), axis=1)))


def _sample_rows(n: int, sample: int, seed: int) -> np.ndarray:
    return np.sort(np.random.default_rng(seed).choice(n, size=sample, replace=False)) if n > sample else np.arange(n)


def _entropy(p: np.ndarray) -> float:
    """Shannon entropy of the shares `p` (zeros skipped)."""
    nonzero = p[p > 0]
    return float(-(nonzero * np.log(nonzero)).sum())


def _log_mean_exp_pairs(x: np.ndarray, sample: int, seed: int, distance) -> float:
    """log mean over pairs i < j of exp(distance(gram)) of a seeded sample of rows, L2-normalised, in blocks of
    1,024 rows (memory 1024 × m); NaN under two rows. On the sphere every exponent is bounded (≥ −8 for t = 2),
    so nothing underflows."""
    if len(x) < 2:
        return math.nan
    z = l2_normalize(x[_sample_rows(len(x), sample, seed)])
    m = len(z)
    total, count = 0.0, 0
    for start in range(0, m, 1024):
        gram = z[start : start + 1024] @ z.T
        upper = np.arange(m)[None, :] > np.arange(start, min(start + 1024, m))[:, None]
        total += float(np.exp(distance(gram))[upper].sum())
        count += int(upper.sum())
    return float(np.log(total / count))


def uniformity(x: np.ndarray, sample: int = UNIFORMITY_SAMPLE, seed: int = 0, t: float = 2.0) -> float:
    """Wang & Isola: log mean over pairs i < j of exp(−t‖xᵢ − xⱼ‖²), on a seeded sample of rows."""
    return _log_mean_exp_pairs(x, sample, seed, lambda gram: -t * (2.0 - 2.0 * gram))


def cosine_uniformity(x: np.ndarray, sample: int = UNIFORMITY_SAMPLE, seed: int = 0, t: float = 2.0) -> float:
    """S2Full: log mean over pairs i < j of exp(−t·d²) with d = 1 − cos, on a seeded sample of rows."""
    return _log_mean_exp_pairs(x, sample, seed, lambda gram: -t * (1.0 - gram) ** 2)


def spectrum(x: np.ndarray, top: Sequence[int] = TOP_COMPONENTS, *, normalize: bool = True) -> dict[str, Any]:
    """Singular values of the centred matrix (rows L2-normalised first unless `normalize` is False:
    SemCSE's anisotropy figure centres the raw vectors); variance shares; isotropy."""
    z = l2_normalize(x) if normalize else np.asarray(x, dtype=np.float64)
    if len(z) < 2:
        return {"singular_values": [], "isotropy": math.nan, "top_share": {}}
    span = min(len(z) - 1, z.shape[1])
    s = np.linalg.svd(z - z.mean(axis=0), compute_uv=False)[:span]  # centring leaves at most n − 1 directions
    variance = s**2
    total = variance.sum()
    p = variance / total if total > 0 else variance
    effective_rank = float(np.exp(_entropy(p))) if (p > 0).any() else 0.0
    return {
        "singular_values": [float(v) for v in s],
        "top_share": {str(k): float(p[:k].sum()) for k in top if k <= len(p)},
        "effective_rank": effective_rank,
        "isotropy": effective_rank / span if span > 0 else math.nan,
        "ssd": singular_spectrum_deviation(x),  # uncentred, rows normalised: a reconstruction (module docstring)
    }


def singular_spectrum_deviation(x: np.ndarray) -> float:
    """SciJEPA's SSD, reconstructed (see the module docstring): 1 − H(p) / ln min(n, d) with p_k = σ_k² / Σσ² of
    the uncentred, row-normalised matrix; 0 = flat spectrum, 1 = one direction. NaN for fewer than 2 rows or
    dimensions (nothing to deviate from)."""
    z = l2_normalize(np.asarray(x, dtype=np.float64))
    if z.ndim != 2 or min(z.shape) < 2:
        return math.nan
    s = np.linalg.svd(z, compute_uv=False)
    variance = s**2
    total = variance.sum()
    if total <= 0:
        return math.nan
    return float(min(max(1.0 - _entropy(variance / total) / math.log(min(z.shape)), 0.0), 1.0))


def citation_geometry(ta: Mapping[str, np.ndarray], pairs: Sequence[tuple[str, str]],
                      body: Mapping[str, Mapping[str, np.ndarray]], seed: int = 0) -> dict[str, Any]:
    """All geometry figures for one model on a citation benchmark.

    `ta`: paper id -> TA embedding; `pairs`: linked paper ids; `body`: body mode ->
    paper id -> body embedding (papers without a body are simply absent).
    """
    ids = sorted(ta)
    matrix = np.stack([ta[i] for i in ids]) if ids else np.zeros((0, 0))
    usable = [(a, b) for a, b in pairs if a in ta and b in ta]
    left = np.stack([ta[a] for a, _ in usable]) if usable else np.zeros((0, 0))
    right = np.stack([ta[b] for _, b in usable]) if usable else np.zeros((0, 0))
    out: dict[str, Any] = {
        "papers": len(ids), "pairs": len(usable), "pair_alignment": cosine_alignment(left, right),
        "uniformity": cosine_uniformity(matrix, seed=seed), "uniformity_sample": min(len(ids), UNIFORMITY_SAMPLE),
        "intra_article_alignment": {}, "wang_isola_alignment": alignment(left, right),
        "wang_isola_uniformity": uniformity(matrix, seed=seed), "wang_isola_intra_article_alignment": {},
        "spectrum": spectrum(matrix)}
    for mode, vectors in sorted(body.items()):
        common = [i for i in ids if i in vectors]
        a = np.stack([ta[i] for i in common]) if common else np.zeros((0, 0))
        b = np.stack([vectors[i] for i in common]) if common else np.zeros((0, 0))
        out["intra_article_alignment"][mode] = cosine_alignment(a, b)
        out["wang_isola_intra_article_alignment"][mode] = alignment(a, b)
    return out


def geometry_result(geometry: Mapping[str, Any]) -> tuple[dict[str, float], dict[str, Any]]:
    """`citation_geometry`'s figures as a task's metrics (its numeric leaves as ``a.b`` keys) and details (the
    singular values, for the spectrum figure)."""

    def flat(tree: Mapping[str, Any], prefix: str = "") -> dict[str, float]:
        out: dict[str, float] = {}
        for key, value in tree.items():
            if isinstance(value, Mapping):
                out.update(flat(value, f"{prefix}{key}."))
            elif isinstance(value, int | float) and not isinstance(value, bool):
                out[f"{prefix}{key}"] = float(value)
        return out

    values = geometry.get("spectrum", {}).get("singular_values", [])
    return flat(geometry), {"singular_values": [float(v) for v in values]}
