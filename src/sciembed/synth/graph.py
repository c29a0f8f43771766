"""A seeded synthetic citation graph, fully vectorised so it scales to millions of papers.

Papers are indexed in publication order ("older" = lower index). Each citation picks an older paper of
one group (same topic, same domain, or everyone) with probability proportional to a Pareto fitness,
inside a look-back window favouring recent work: heavy-tailed in-degrees without a sequential
simulation, each draw one `searchsorted` into the group-sorted cumulative fitness.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa

from sciembed.synth.vocab import DOMAIN_NAMES, TOPIC_DOMAIN, TOPICS

CHUNK_EDGES = 1 << 21  # edges drawn per step: bounds memory, fixed so results do not depend on machine
FIRST_YEAR, LAST_YEAR = 1990, 2024
YEAR_GROWTH = 0.07  # yearly growth of publication counts
PARETO_SHAPE = 1.5  # fitness tail; smaller = heavier in-degree tail
ACTIVITY_SIGMA = 0.5  # log-normal spread of how many references papers make
CROSS_TOPIC_SAME_DOMAIN = 0.5  # share of cross-topic citations that stay in the citing paper's domain
RESAMPLE_ROUNDS = 6  # cross-topic draws that hit the citing topic are redrawn up to this many times
DEDUP_ROUNDS = 10 # repeated references of one paper are redrawn up to this many times
MIN_WINDOW = 32  # look-back windows span at least this many older group members


def paper_id(i: int) -> str:
    """Corpus id of synthetic paper `i` (also its external_ids.s2)."""
    return f"synth-{i:07d}"


def paper_ids(indices: np.ndarray) -> pa.StringArray:
    """`paper_id` for a whole index array at once (Arrow strings, ready for Parquet / DuckDB tables)."""
    import pyarrow.compute as pc

    digits = pc.utf8_lpad(pa.array(np.asarray(indices, dtype=np.int64)).cast(pa.string()), 7, "0")
    return pc.binary_join_element_wise("synth-", digits, "")


@dataclass(frozen=True, eq=False)
class SyntheticGraph:
    """Papers (topic, domain, year per index) and directed citations citing -> cited.

    Edges are sorted by (citing, cited). No self-loops; a few duplicate edges
    may occur (the corpus funnel deduplicates).
    """

    topic: np.ndarray  # int32 [n_papers], index into topic_names
    domain: np.ndarray  # int16 [n_papers], index into domain_names
    year: np.ndarray  # int16 [n_papers], non-decreasing
    citing: np.ndarray  # int64 [n_edges]
    cited: np.ndarray  # int64 [n_edges]
    domain_names: list[str] = field(default_factory=lambda: list(DOMAIN_NAMES))
    topic_names: list[str] = field(default_factory=lambda: [t.name for t in TOPICS])

    @property
    def n_papers(self) -> int:
        return int(self.topic.shape[0])

    @property
    def n_edges(self) -> int:
        return int(self.citing.shape[0])

    @cached_property
    def _offsets(self) -> np.ndarray:
        return np.searchsorted(self.citing, np.arange(self.n_papers + 1, dtype=np.int64))

    def references_of(self, i: int) -> np.ndarray:
        """Indices of the papers that paper `i` cites (sorted; duplicates kept)."""
        offsets = self._offsets
        return self.cited[offsets[i] : offsets[i + 1]]

    def in_degree(self) -> np.ndarray:
        return np.bincount(self.cited, minlength=self.n_papers)

    def out_degree(self) -> np.ndarray:
        return np.diff(self._offsets)

    def same_topic_share(self) -> float:
        """Share of citations whose two papers have the same topic."""
        if self.n_edges == 0:
            return float("nan")
        return float(np.mean(self.topic[self.citing] == self.topic[self.cited]))


class _GroupSampler:
    """Draws, for each citing paper, a fitness-weighted paper of its own group (one group if `group` is None)."""

    def __init__(self, group: np.ndarray | None, fitness: np.ndarray) -> None:
        n = fitness.shape[0]
        self.group = np.zeros(n, dtype=np.int8) if group is None else group
        self.order = np.argsort(self.group, kind="stable")  # group-major, index (= time) order inside a group
        self.position = np.empty(n, dtype=np.int64)
        self.position[self.order] = np.arange(n, dtype=np.int64)
        counts = np.bincount(self.group)
        self.end = np.cumsum(counts).astype(np.int64)
        self.start = self.end - counts
        self.cumulative = np.concatenate(([0.0], np.cumsum(fitness[self.order])))

    def draw(self, citing: np.ndarray, rng: np.random.Generator, newer: bool = False) -> np.ndarray:
        """A cited paper per citing paper, -1 where the group has no candidate.

        Older members only, inside a look-back window of the most recent
        ceil(u^2 * older) of them (favours recent work); with `newer`, any
        member of the group (may return the citing paper itself).
        """
        pos = self.position[citing]
        group = self.group[citing]
        if newer:
            low, high = self.start[group], self.end[group]
            ok = high - low > 1
        else:
            older = pos - self.start[group]
            ok = older > 0
            window = np.maximum(np.ceil(older * rng.random(citing.shape[0]) ** 2), MIN_WINDOW).astype(np.int64)
            low, high = pos - np.minimum(window, older), pos
        cum = self.cumulative
        target = cum[low] + rng.random(citing.shape[0]) * (cum[high] - cum[low])
        hit = np.clip(np.searchsorted(cum, target, side="right") - 1, low, np.maximum(high - 1, low))
        return np.where(ok, self.order[np.minimum(hit, self.order.shape[0] - 1)], -1)


def synthetic_graph(n_papers: int, n_edges: int, seed: int = 0, same_topic: float = 0.8) -> SyntheticGraph:
    """Generate papers (topic, domain, year) and `n_edges` citations among them.

    A share `same_topic` of citations is drawn inside the citing paper's topic;
    the rest goes to other topics (half of them in the same domain). Targets
    are older papers where any exist; the very first papers cite later ones.
    """
    if n_papers < 0 or n_edges < 0:
        raise ValueError(f"n_papers and n_edges must be >= 0, got n_papers={n_papers}, n_edges={n_edges}")
    if n_edges and n_papers < 2:
        raise ValueError(f"{n_edges} edges need at least 2 papers, got n_papers={n_papers}")
    if not 0.0 <= same_topic <= 1.0:
        raise ValueError(f"same_topic must be in [0, 1], got {same_topic}")

    rng = np.random.default_rng(np.random.SeedSequence([seed, 0x5C1E]))
    n_topics = len(TOPICS)
    topic_weights = rng.dirichlet(np.full(n_topics, 4.0))
    topic = rng.choice(n_topics, size=n_papers, p=topic_weights).astype(np.int32)
    domain = np.asarray(TOPIC_DOMAIN, dtype=np.int16)[topic]
    years = np.arange(FIRST_YEAR, LAST_YEAR + 1)
    year_weights = np.exp(YEAR_GROWTH * (years - FIRST_YEAR))
    year = np.sort(rng.choice(years, size=n_papers, p=year_weights / year_weights.sum())).astype(np.int16)

    fitness = rng.pareto(PARETO_SHAPE, size=n_papers) + 1.0
    activity = rng.lognormal(0.0, ACTIVITY_SIGMA, size=n_papers)
    out_degree = rng.multinomial(n_edges, activity / activity.sum()) if n_papers else np.zeros(0, dtype=np.int64)
    citing = np.repeat(np.arange(n_papers, dtype=np.int64), out_degree)
    cited = np.empty(n_edges, dtype=np.int64)
    if n_edges == 0:
        return SyntheticGraph(topic, domain, year, citing, cited)

    samplers = (_GroupSampler(topic, fitness), _GroupSampler(domain, fitness), _GroupSampler(None, fitness))
    for start in range(0, n_edges, CHUNK_EDGES):
        chunk = citing[start : start + CHUNK_EDGES]
        cited[start : start + chunk.shape[0]] = _draw_chunk(chunk, topic, same_topic, samplers, rng)
        # Sorting within a chunk sorts globally: chunks are consecutive runs of `citing`.
        view = slice(start, start + chunk.shape[0])
        key = citing[view] * n_papers + cited[view]
        key.sort()
        cited[view] = key % n_papers
    return SyntheticGraph(topic, domain, year, citing, cited)


def _draw_chunk(citing: np.ndarray, topic: np.ndarray, same_topic: float,
                samplers: tuple[_GroupSampler, _GroupSampler, _GroupSampler], rng: np.random.Generator) -> np.ndarray:
    """Targets for one chunk of citing papers; self-loops and repeated references are redrawn."""
    n_papers = topic.shape[0]
    u = rng.random(citing.shape[0])
    cross_domain = same_topic + (1.0 - same_topic) * CROSS_TOPIC_SAME_DOMAIN
    kind = np.where(u < same_topic, 0, np.where(u < cross_domain, 1, 2)).astype(np.int8)
    cited = _draw_kinds(citing, kind, topic, samplers, rng, newer=False)
    for round_ in range(DEDUP_ROUNDS):
        key = citing * n_papers + cited
        order = np.argsort(key, kind="stable")
        sorted_key = key[order]
        bad = np.union1d(order[1:][sorted_key[1:] == sorted_key[:-1]], np.flatnonzero(citing == cited))
        if bad.size == 0:
            break
        # Older papers of the same kind first; then newer ones of that kind (a young paper may have
        # too few older ones in its topic); finally anyone.
        late = round_ >= DEDUP_ROUNDS - 2
        redo_kind = np.full(bad.size, 2, dtype=np.int8) if late else kind[bad]
        cited[bad] = _draw_kinds(citing[bad], redo_kind, topic, samplers, rng, newer=round_ >= DEDUP_ROUNDS // 3)
    loops = np.flatnonzero(citing == cited)
    cited[loops] = (citing[loops] + 1 + rng.integers(0, n_papers - 1, size=loops.size)) % n_papers
    return cited


def _draw_kinds(citing: np.ndarray, kind: np.ndarray, topic: np.ndarray,
                samplers: tuple[_GroupSampler, _GroupSampler, _GroupSampler], rng: np.random.Generator,
                newer: bool) -> np.ndarray:
    """kind 0: same topic; 1: same domain, other topic; 2: anywhere, other topic."""
    cited = np.full(citing.shape[0], -1, dtype=np.int64)
    idx = np.flatnonzero(kind == 0)
    cited[idx] = samplers[0].draw(citing[idx], rng, newer)
    # Cross-topic draws that land in the citing topic are redrawn, so the realised
    # same-topic share stays close to the setting.
    for code in (1, 2):
        idx = np.flatnonzero(kind == code)
        for _ in range(RESAMPLE_ROUNDS):
            if idx.size == 0:
                break
            drawn = samplers[code].draw(citing[idx], rng, newer)
            cited[idx] = drawn
            idx = idx[(drawn >= 0) & (topic[np.maximum(drawn, 0)] == topic[citing[idx]])]
    # No candidate in the group: any older paper, else anyone (the first paper cites a later one).
    idx = np.flatnonzero(cited < 0)
    if idx.size:
        cited[idx] = samplers[2].draw(citing[idx], rng)
        idx = idx[cited[idx] < 0]
        cited[idx] = samplers[2].draw(citing[idx], rng, newer=True)
    return cited
