"""CoSAEmb's triplets (local, global, inter-document) from a built corpus's train split; the kinds and their
negatives are tabled in docs/recipes/cosaemb.md.

A paper whose own citations give no candidate negative falls back to a random uncited paper, counted; papers
without body give only inter-document triplets. Texts are stored once (`TripletData.texts`, written to a
memory-mapped Arrow file as they are cut); a triplet is four integers, and the collator looks texts up per batch.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sciembed.corpus.layout import CorpusDir, CorpusError
from sciembed.corpus.paper_store import StoredPapers
from sciembed.errors import SciembedInputError
from sciembed.ioutil.mapped_rows import TextWriter
from sciembed.papers.model import Paper
from sciembed.views.chunk import SECTION_CLASSES, paper_chunks, ta_unit
from sciembed.views.tokens import TokenCounter

KINDS: tuple[str, ...] = ("inter", "global", "local")  # a triplet's label is its kind's position here
NEGATIVES = ("cited", "random", "two_hop")
INTER_NEGATIVES = ("random", "two_hop")
ORDERS = ("anchor_positive", "positive_anchor", "random")


class TripletError(SciembedInputError, ValueError):
    """The corpus or the options cannot give the requested triplets."""


@dataclass
class TripletData:
    """Texts, the fixed (kind, anchor, positive) rows, and what negatives may be drawn from."""

    papers: tuple[str, ...]
    texts: Sequence[str]  # a list, or a `MappedTexts` file read per batch
    ta: np.ndarray  # paper index -> text id of its TA unit
    rows: np.ndarray  # (n, 4): kind id, anchor text, positive text, paper index of the anchor paper
    cites: list[np.ndarray]  # paper index -> paper indices it cites (sorted)
    two_hop: list[np.ndarray]  # paper index -> papers cited by papers it cites, minus itself and what it cites
    counts: dict[str, int] = field(default_factory=dict)
    per_class: dict[str, dict[str, int]] = field(default_factory=dict)
    fixed_negative: np.ndarray | None = None  # per row: a given negative text id (SPECTER's triplets), −1 = draw one

    def __len__(self) -> int:
        return len(self.rows)


def load_papers_and_citations(corpus: str | Path | CorpusDir, split: str = "train"
                              ) -> tuple[Sequence[Paper], list[tuple[str, str]]]:
    """The split's papers (id order; `StoredPapers`, read from the paper store when iterated) and its
    directed citations."""
    from sciembed.training.data import split_papers

    corpus = corpus if isinstance(corpus, CorpusDir) else CorpusDir(corpus)
    corpus.require("papers.parquet")
    if not corpus.has_splits():
        raise CorpusError(f"{corpus.root}: no splits (pairs.parquet / splits.parquet); train on a built corpus "
                          "(`sciembed corpus build`)")
    _, papers = split_papers(corpus, split, missing="drop")
    citations = corpus.citations(split) if corpus.has_citations() else []
    return papers, citations


def build_triplet_data(papers: Sequence[Paper], citations: Sequence[tuple[str, str]], count: TokenCounter, budget: int,
                       *, kinds: Sequence[str] = ("local", "global", "inter"), negative: str = "cited",
                       merge: bool = True, sep: bool = True, source: str = "corpus",
                       texts_out: Path | None = None) -> TripletData:
    """Cut every paper into CoSAEmb units and list the (kind, anchor, positive) rows; checks the options.

    `texts_out`: write the texts there (a `MappedTexts` file) instead of keeping them in a list."""
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        raise TripletError(f"unknown triplet kind(s) {', '.join(unknown)}; expected {', '.join(KINDS)}")
    if negative not in NEGATIVES:
        raise TripletError(f"unknown negative strategy {negative!r}; expected one of {', '.join(NEGATIVES)}")
    ids = papers.ids() if isinstance(papers, StoredPapers) else [p.id for p in papers]
    index = {pid: i for i, pid in enumerate(ids)}
    cited: dict[int, set[int]] = defaultdict(set)
    for a, b in citations:
        if a in index and b in index and a != b:
            cited[index[a]].add(index[b])
    n_citations = sum(len(v) for v in cited.values())
    need = ["inter-document triplets"] if "inter" in kinds else []  # what a citation graph is needed for
    if negative != "random" and set(kinds) & {"local", "global"}:
        need.append(f"{negative!r} negatives of local/global triplets")
    if not n_citations and need:
        raise TripletError(
            f"{source}: no citation graph in the train split (citations.parquet missing or empty), so "
            f"{' and '.join(need)} are impossible; train with --kinds local,global --set data.negative=random, "
            "or rebuild the corpus with `sciembed corpus build`")
    texts: list[str] | TextWriter = TextWriter(texts_out) if texts_out is not None else []
    ta = np.zeros(len(papers), dtype=np.int64)
    rows: list[tuple[int, int, int, int]] = []
    per_class = {c.value: Counter() for c in SECTION_CLASSES}
    counts: Counter[str] = Counter()
    kind_id = {k: i for i, k in enumerate(KINDS)}
    for i, paper in enumerate(papers):
        ta[i] = len(texts)
        texts.append(ta_unit(paper, sep=sep))
        if not paper.has_body:
            counts["papers_without_body"] += 1
            continue
        for item in paper_chunks(paper, count, budget, merge=merge, sep=sep):
            first = len(texts)
            texts.extend(item.chunks)
            stats = per_class[item.unit.role.value]
            stats["section_texts"] += 1
            stats["chunks"] += len(item.chunks)
            if "local" in kinds:
                for j in range(1, len(item.chunks)):
                    rows.append((kind_id["local"], first + j, first + j - 1, i))
                    stats["local"] += 1
            if "global" in kinds:
                rows.append((kind_id["global"], first, int(ta[i]), i))
                stats["global"] += 1
    cites = [np.array(sorted(cited.get(i, ())), dtype=np.int64) for i in range(len(papers))]
    two_hop = []
    for i in range(len(papers)):
        hop = set().union(*(cited.get(int(j), set()) for j in cites[i]))
        two_hop.append(np.array(sorted(hop - set(cites[i].tolist()) - {i}), dtype=np.int64))
    if "inter" in kinds:
        for i in range(len(papers)):
            for j in cites[i]:
                rows.append((kind_id["inter"], int(ta[i]), int(ta[j]), i))
    array = np.asarray(rows, dtype=np.int64).reshape(-1, 4)
    for k in KINDS:
        counts[k] = int((array[:, 0] == kind_id[k]).sum()) if len(array) else 0
    counts["papers"] = len(papers)
    counts["citations"] = n_citations
    counts["texts"] = len(texts)
    stored = texts.finish() if isinstance(texts, TextWriter) else texts
    if not len(array):
        raise TripletError(f"{source}: the train split gives no triplets of kinds {', '.join(kinds)}")
    return TripletData(tuple(ids), stored, ta, array, cites, two_hop, dict(counts),
                       {c: dict(v) for c, v in per_class.items()})


def _uncited(rng: np.random.Generator, n: int, paper: int, cites: np.ndarray) -> int | None:
    """A random paper that is neither `paper` nor one it cites (None if there is none)."""
    if n - 1 - len(cites) <= 0:
        return None
    while True:
        j = int(rng.integers(n))
        if j != paper and not (len(cites) and cites[np.searchsorted(cites, j) % len(cites)] == j):
            return j


@dataclass(frozen=True)
class EpochTriplets:
    """One epoch, shuffled: columns of text ids and kind labels, plus how negatives were found."""

    anchor: np.ndarray
    positive: np.ndarray
    negative: np.ndarray
    label: np.ndarray
    fallbacks: dict[str, int]


def draw_epoch(data: TripletData, epoch: int, seed: int, *, negative: str = "cited",
               inter_negative: str = "random", order: str = "anchor_positive") -> EpochTriplets:
    """Negatives drawn and rows shuffled for one epoch, from (seed, epoch) alone."""
    if inter_negative not in INTER_NEGATIVES:
        raise TripletError(f"unknown inter-document negative {inter_negative!r}; expected one of "
                           f"{', '.join(INTER_NEGATIVES)}")
    if order not in ORDERS:
        raise TripletError(f"unknown anchor/positive order {order!r}; expected one of {', '.join(ORDERS)}")
    rng = np.random.default_rng([seed, epoch])
    n = len(data.papers)
    inter = KINDS.index("inter")
    neg = np.empty(len(data.rows), dtype=np.int64)
    fallbacks: Counter[str] = Counter()
    for r, (kind, _, _, paper) in enumerate(data.rows):
        if data.fixed_negative is not None and data.fixed_negative[r] >= 0:
            neg[r] = data.fixed_negative[r]
            continue
        strategy = inter_negative if kind == inter else negative
        pool = data.cites[paper] if strategy == "cited" else data.two_hop[paper] if strategy == "two_hop" else None
        if pool is not None and len(pool):
            j = int(pool[rng.integers(len(pool))])
        else:
            if pool is not None:
                fallbacks[f"{KINDS[kind]}: no {strategy} paper, random uncited instead"] += 1
            j = _uncited(rng, n, int(paper), data.cites[paper])
            if j is None:
                raise TripletError(f"paper {data.papers[paper]!r} cites every other paper of the split: no negative")
        neg[r] = data.ta[j]
    anchor, positive = data.rows[:, 1].copy(), data.rows[:, 2].copy()
    if order != "anchor_positive":
        swap = np.ones(len(anchor), bool) if order == "positive_anchor" else rng.random(len(anchor)) < 0.5
        anchor[swap], positive[swap] = data.rows[swap, 2], data.rows[swap, 1]
    perm = rng.permutation(len(anchor))
    return EpochTriplets(anchor[perm], positive[perm], neg[perm], data.rows[perm, 0].copy(),
                         dict(sorted(fallbacks.items())))
