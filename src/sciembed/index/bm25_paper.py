"""BM25 as an index kind: a corpus' views in bm25s, searched like a dense paper index (a paper scores its best view).

Layout of a BM25 index directory::

    bm25s/          bm25s's own save format (score matrix, vocabularies, parameters, the view texts as
                    corpus.jsonl) and ids.json (view row -> paper id): loaded memory-mapped, never rebuilt
    papers.json     paper id -> title
    manifest.json   kind "bm25", view kind, counts, checksums

An index written before bm25s's format was kept (``views.jsonl`` instead of ``bm25s/``) still opens:
its views are tokenised and scored again on every load.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sciembed.corpus.layout import CorpusDir
from sciembed.index.indexed_views import IndexCounts, collect_views
from sciembed.index.paper_index import MANIFEST, read_manifest
from sciembed.ioutil.atomic import refuse_links, write_text_atomic
from sciembed.ioutil.checksums import seal, sha256_file
from sciembed.retrieval.bm25 import BM25Index
from sciembed.retrieval.dense import IndexLoadError
from sciembed.retrieval.ties import ordered, past_ties
from sciembed.views.kinds import IndexView, index_view
from sciembed.views.segment import DEFAULT_SEGMENT_TOKENS

Ranking = list[tuple[str, float]]
BM25_DIR = "bm25s"
LEGACY_VIEWS = "views.jsonl"


class BM25PaperIndex:
    """Top-k papers by BM25 over their views; built from texts or loaded from a saved `BM25Index`."""

    kind = "bm25"

    def __init__(self, bm25: BM25Index) -> None:
        self.bm25 = bm25
        self._papers = {key: len(bm25.rows(key)) for key in dict.fromkeys(bm25._ids)}
        self._most_views = max(self._papers.values(), default=1)

    @classmethod
    def from_texts(cls, paper_ids: list[str], texts: list[str]) -> BM25PaperIndex:
        bm25 = BM25Index()
        bm25.add(paper_ids, texts)
        return cls(bm25)

    def __len__(self) -> int:
        return len(self._papers)

    def search_texts(self, texts: list[str], k: int, exclude: list[list[str]] | None = None) -> list[Ranking]:
        """Top-k papers per query text (a paper's best view), `exclude[i]` never among query i's; searched past
        every paper tied with the k-th (`past_ties`), equal scores in seeded-hash order."""
        exclude = exclude or [[] for _ in texts]

        def search(queries: Sequence[int], depth: int) -> list[Ranking]:
            rows = (depth + max(len(exclude[i]) for i in queries)) * self._most_views  # `depth` papers within
            out = []
            found = self.bm25.search([texts[i] for i in queries], min(len(self.bm25), rows))
            for i, hits in zip(queries, found, strict=True):
                best: dict[str, float] = {}
                for pid, score in hits:
                    if pid not in exclude[i]:
                        best.setdefault(pid, score)
                out.append(list(best.items())[:depth])
            return out

        if not texts or not len(self.bm25):
            return [[] for _ in texts]
        return [ordered(h)[:k] for h in past_ties(search, range(len(texts)), k, len(self._papers))]

    def paper_text(self, paper_id: str) -> str:
        if paper_id not in self._papers:
            raise KeyError(f"paper {paper_id!r} is not in this index ({len(self)} papers)")
        return "\n".join(self.bm25.text(row) for row in self.bm25.rows(paper_id))


def build_bm25_index(corpus: str | Path, kind: str, out: str | Path, *, target: int = 358,
                     segment_tokens: int = DEFAULT_SEGMENT_TOKENS) -> IndexCounts:
    """Write a BM25 index directory (bm25s/, papers.json, manifest.json) for the corpus' views."""
    kind = index_view(kind)
    views, titles, counts = collect_views(CorpusDir(corpus).iter_papers(), kind, target, segment_tokens=segment_tokens)
    if not views:
        raise ValueError(f"{corpus}: none of {counts.read} papers has text to index")
    save_bm25_index(out, [v.paper_id for v in views], [v.text for v in views], titles, {
        "corpus": str(Path(corpus).resolve()), "view": kind,
        "target_words": target if kind == IndexView.WINDOW else None,
        "segment_tokens": segment_tokens if kind == IndexView.SEGMENT else None, "counts": asdict(counts)})
    return counts


def save_bm25_index(out: str | Path, ids: list[str], texts: list[str], titles: dict[str, str],
                    fields: dict[str, Any]) -> None:
    """Index `texts` (one view each, of paper `ids`) and write the directory; the sealed manifest last."""
    import bm25s

    out = Path(out)
    refuse_links(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / MANIFEST).unlink(missing_ok=True)
    bm25 = BM25Index()
    bm25.add(ids, texts)
    bm25.save(out / BM25_DIR)
    (out / "papers.json").write_text(json.dumps(titles, ensure_ascii=False))
    checked = ("papers.json", f"{BM25_DIR}/ids.json", f"{BM25_DIR}/params.index.json")
    manifest = {**fields, "kind": "bm25", "format": "bm25s",
                "encoder": {"name": "bm25", "source": "bm25", "bm25s": bm25s.__version__},
                "sha256": {name: sha256_file(out / name) for name in checked}}
    write_text_atomic(out / MANIFEST, json.dumps(seal(manifest), indent=2))


def open_bm25_index(path: str | Path) -> tuple[BM25PaperIndex, dict[str, Any], dict[str, str]]:
    """(index, manifest, titles) of a BM25 index directory."""
    path = Path(path)
    manifest = read_manifest(path)
    if manifest.get("kind") != "bm25":
        raise IndexLoadError(f"{path}: not a BM25 index directory (manifest kind {manifest.get('kind')!r})")
    if (path / BM25_DIR).is_dir():
        try:
            index = BM25PaperIndex(BM25Index.load(path / BM25_DIR))
        except (OSError, ValueError, KeyError) as exc:
            raise IndexLoadError(f"{path / BM25_DIR}: unreadable bm25s index ({exc}); rebuild it") from exc
    elif (path / LEGACY_VIEWS).is_file():
        index = BM25PaperIndex.from_texts(*_legacy_views(path / LEGACY_VIEWS))
    else:
        raise IndexLoadError(f"{path}: not a BM25 index directory (no {BM25_DIR}/)")
    return index, manifest, json.loads((path / "papers.json").read_text())


def _legacy_views(file: Path) -> tuple[list[str], list[str]]:
    ids, texts = [], []
    with open(file, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            try:
                record = json.loads(line)
                ids.append(str(record["paper_id"]))
                texts.append(str(record["text"]))
            except (json.JSONDecodeError, KeyError) as exc:
                raise IndexLoadError(f"{file}:{number}: not a view record ({exc})") from exc
    return ids, texts
