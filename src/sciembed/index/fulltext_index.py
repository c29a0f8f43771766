"""The default full-text index: BM25 over full text + dense title+abstract + dense section pieces, one directory.

What `sciembed index build PAPERS --out IDX` writes (no ``--view``), the three searches of the fused
default measured on real papers (docs/p2p.md: ``bm25``, ``a2a``, ``late``)::

    IDX/manifest.json   kind "fulltext": its parts, the encoder, counts, the pieces read, build timings
    IDX/bm25/           BM25 over each paper's full text (a BM25 index directory, bm25s format)
    IDX/ta/             dense title+abstract (a dense index directory: answers ``a2a``)
    IDX/late/           dense title+abstract + section pieces (``ta+section``: answers ``late``)

The pieces are those the fusion was measured with (configs/p2p-acl.yaml): the first encoder-sized
piece of at most three sections spread over each paper. Title+abstract texts are encoded once and
shared by ``ta`` and ``late``. `index search IDX` and `index serve IDX` read the directory as one
index (`expand_index_dirs`, `fulltext_parts`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.corpus.layout import CorpusDir
from sciembed.index.bm25_paper import save_bm25_index
from sciembed.index.indexed_views import IndexCounts
from sciembed.index.paper_index import MANIFEST, describe_encoder, filled_index, save_paper_index
from sciembed.ioutil.atomic import check_writable, refuse_links, write_text_atomic
from sciembed.ioutil.checksums import seal
from sciembed.models.process_pool import parallel_encoding, parallel_processes
from sciembed.views.fit import encoder_budget, section_pieces
from sciembed.views.kinds import IndexView
from sciembed.views.simple import full_text, ta_text

KIND = "fulltext"
PARTS = {"bm25": "bm25", "a2a": "ta", "late": "late"}  # run name -> sub-directory
PIECES_PER_SECTION, PIECE_SECTIONS = 1, 3  # configs/p2p-acl.yaml: what the shipped fusion was measured with
SAMPLE, SAMPLE_GROUPS = 64, 4  # texts encoded first to estimate the whole encode, in runs of similar length


def is_fulltext_index(path: str | Path) -> bool:
    """True for a directory `build_fulltext_index` wrote."""
    try:
        return json.loads((Path(path) / MANIFEST).read_text()).get("kind") == KIND
    except (OSError, ValueError, AttributeError):
        return False


def fulltext_parts(path: str | Path) -> dict[str, Path]:
    """Run name (bm25, a2a, late) -> its index directory inside a full-text index."""
    return {run: Path(path) / sub for run, sub in PARTS.items()}


def expand_index_dirs(index_dirs: list[str | Path]) -> tuple[list[Path], bool]:
    """The index directories with each full-text index replaced by its three parts; True if any was one."""
    out: list[Path] = []
    found = False
    for path in map(Path, index_dirs):
        full = is_fulltext_index(path)
        out.extend(fulltext_parts(path).values() if full else [path])
        found |= full
    return out, found


def _token_counter(encoder: Any) -> Callable[[list[str]], list[int]] | Callable[[str], int]:
    from sciembed.views.tokens import approx_tokens, tokenizer_counter

    tokenizer = getattr(getattr(encoder, "model", None), "tokenizer", None)
    return tokenizer_counter(tokenizer) if tokenizer is not None else approx_tokens


def encode_with_estimate(encoder: Any, texts: list[str], *, batch_size: int | None, show_progress: bool,
                         say: Callable[[str], None]) -> tuple[np.ndarray, float]:
    """The vectors of `texts` (input order) and the estimated seconds (0 when they fit in the sample): a sample
    of `SAMPLE` is encoded first, timed, and the estimate of the rest told to `say`.

    The sample is `SAMPLE_GROUPS` runs of length-order neighbours at evenly spaced lengths, each one batch, as
    the whole encode batches (a sample of mixed lengths over-estimated the ACL build by 39%).
    """
    if len(texts) <= 2 * SAMPLE:
        return encoder.encode(texts, batch_size=batch_size, show_progress=show_progress), 0.0
    ready = getattr(encoder, "wait_ready", None)  # worker processes (`models.process_pool`): loaded before timing
    if callable(ready):
        ready()
    by_length = np.argsort([len(t) for t in texts], kind="stable")
    group = SAMPLE // SAMPLE_GROUPS
    starts = ((np.arange(SAMPLE_GROUPS) + 0.5) * len(texts) / SAMPLE_GROUPS - group / 2).astype(int)
    picked = np.sort(np.concatenate([by_length[s : s + group] for s in starts]))
    rest = np.setdiff1d(np.arange(len(texts)), picked)
    start = time.perf_counter()
    first = encoder.encode([texts[i] for i in picked], batch_size=group, show_progress=False)
    estimate = (time.perf_counter() - start) * len(rest) / len(picked)
    say(f"encoding {len(texts):,} texts with {getattr(encoder, 'name', 'the encoder')}: about "
        f"{_duration(estimate)} on this machine (from {len(picked)} of them, timed first)")
    vectors = np.empty((len(texts), first.shape[1]), dtype=np.float32)
    vectors[picked] = first
    vectors[rest] = encoder.encode([texts[i] for i in rest], batch_size=batch_size, show_progress=show_progress)
    return vectors, estimate


def _duration(seconds: float) -> str:
    seconds = round(seconds)
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def build_fulltext_index(corpus: str | Path, encoder: Any, out: str | Path, *, batch_size: int | None = None,
                         show_progress: bool = True, extra: dict[str, Any] | None = None,
                         say: Callable[[str], None] = print, late_index: str = "flat",
                         ann: dict[str, Any] | None = None, processes: int | None = None) -> IndexCounts:
    """Write the full-text index of the corpus' papers to `out` (see the module docstring); counts of papers.

    `late_index` (flat, hnsw, ivf-pq or auto) and `ann` (`default_params` overrides) set both dense parts'
    index kind. `processes`: encode in that many processes (`models.process_pool`; None: its choice).
    """
    out = Path(out)
    check_writable(out)
    refuse_links(out)
    started = time.perf_counter()
    if processes is None:  # from the papers' count, so the workers load the model while the corpus is read
        processes = parallel_processes(encoder, CorpusDir(corpus).count_papers() * (1 + PIECE_SECTIONS))
    with parallel_encoding(encoder, processes) as encoding:
        budget = encoder_budget(encoder.max_seq_length)
        read = _read_papers(corpus, budget, _token_counter(encoder))
        read_s = time.perf_counter() - started
        vectors, estimate = encode_with_estimate(encoding, read.ta_texts + read.piece_texts, batch_size=batch_size,
                                                 show_progress=show_progress, say=say)
    encode_s = time.perf_counter() - started - read_s
    counts, titles, ta_ids, piece_ids = read.counts, read.titles, read.ta_ids, read.piece_ids
    common = {"corpus": str(Path(corpus).resolve()), "counts": asdict(counts), "encoder": describe_encoder(encoder),
              **(extra or {})}
    _save_dense(out / PARTS["a2a"], encoder, ta_ids, vectors[: len(ta_ids)], titles, {**common, "view": IndexView.TA},
                late_index, ann)
    late_rows = _paper_order(ta_ids, piece_ids)  # each paper's TA, then its pieces (what `index_views` cuts)
    late_ids = [(ta_ids + piece_ids)[r] for r in late_rows]
    _save_dense(out / PARTS["late"], encoder, late_ids, vectors[late_rows], titles, {
        **common, "view": IndexView.TA_SECTION, "piece_tokens": budget,
        "pieces_per_section": PIECES_PER_SECTION, "piece_sections": PIECE_SECTIONS}, late_index, ann)
    save_bm25_index(out / PARTS["bm25"], read.bm25_ids, read.bm25_texts, titles,
                    {"corpus": common["corpus"], "view": IndexView.FULLTEXT, "counts": asdict(counts)})
    timings = {"read_s": round(read_s, 1), "encode_s": round(encode_s, 1), "estimated_encode_s": round(estimate, 1),
               "encode_processes": processes, "total_s": round(time.perf_counter() - started, 1)}
    manifest = {**common, "kind": KIND, "view": KIND, "parts": PARTS,
                "views": {"ta": len(ta_ids), "pieces": len(piece_ids), "bm25_texts": len(read.bm25_texts)},
                "pieces": {"per_section": PIECES_PER_SECTION, "sections": PIECE_SECTIONS, "piece_tokens": budget},
                "timings": timings}
    write_text_atomic(out / MANIFEST, json.dumps(seal(manifest), indent=2))
    return counts


@dataclass
class _Read:
    """What the build reads from the corpus: counts, titles, the texts to encode and to index with BM25."""

    counts: IndexCounts = field(default_factory=IndexCounts)
    titles: dict[str, str] = field(default_factory=dict)
    ta_ids: list[str] = field(default_factory=list)
    ta_texts: list[str] = field(default_factory=list)
    piece_ids: list[str] = field(default_factory=list)
    piece_texts: list[str] = field(default_factory=list)
    bm25_ids: list[str] = field(default_factory=list)
    bm25_texts: list[str] = field(default_factory=list)


def _read_papers(corpus: str | Path, budget: int, count: Any) -> _Read:
    """Every paper's title+abstract, its section pieces (`section_pieces`) and its full text; counts of papers."""
    read = _Read()
    for paper in CorpusDir(corpus).iter_papers():
        read.counts.read += 1
        ta, body = ta_text(paper), full_text(paper)
        if not ta.strip() and not body.strip():
            read.counts.rejected += 1
            continue
        pieces = [v.text for v in section_pieces(paper, budget, count, PIECES_PER_SECTION, PIECE_SECTIONS)]
        read.counts.indexed += bool(pieces)
        read.counts.ta_fallback += not pieces
        read.titles[paper.id] = paper.title
        read.bm25_ids.append(paper.id)
        read.bm25_texts.append(body)
        if ta.strip():
            read.ta_ids.append(paper.id)
            read.ta_texts.append(ta)
        read.piece_ids.extend([paper.id] * len(pieces))
        read.piece_texts.extend(pieces)
    if not read.titles:
        raise ValueError(f"{corpus}: none of {read.counts.read} papers has text to index")
    read.counts.views = len(read.ta_texts) + len(read.piece_texts)
    return read


def _paper_order(ta_ids: list[str], piece_ids: list[str]) -> np.ndarray:
    """Rows of ``ta_ids + piece_ids`` grouped by paper (papers in first-seen order, TA first), pieces in order."""
    rows: dict[str, list[int]] = {}
    for row, pid in enumerate(ta_ids + piece_ids):
        rows.setdefault(pid, []).append(row)
    return np.asarray([r for group in rows.values() for r in group], dtype=np.int64)


def _save_dense(out: Path, encoder: Any, ids: list[str], vectors: np.ndarray, titles: dict[str, str],
                fields: dict[str, Any], index_kind: str, ann: dict[str, Any] | None) -> None:
    """One dense index directory of `vectors` (rows of papers `ids`), of `index_kind` (`filled_index`)."""
    index = filled_index(encoder, ids, vectors, index_kind, ann)
    out.mkdir(parents=True, exist_ok=True)
    save_paper_index(out, index, encoder.fingerprint, {p: titles[p] for p in dict.fromkeys(ids)}, fields)
