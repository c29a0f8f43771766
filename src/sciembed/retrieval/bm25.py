"""BM25 lexical baseline (bm25s), with the same `search` contract as the dense indexes.

bm25s builds its sparse score matrix in one pass, so documents are collected
by `add` and indexed on the first search after a change. Only documents that
share at least one term with the query are hits (score > 0): padding a ranking
with arbitrary zero-score documents would flatter recall.

`save` / `load` keep the built index in bm25s's own format (its score matrix,
vocabulary and parameters, the tokenizer's vocabulary and stopwords, and the
texts as bm25s's ``corpus.jsonl``, read lazily through its memory map), plus
``ids.json``: a loaded index answers without tokenising or scoring the
collection again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

from sciembed.retrieval.hits import Hits, check_exclude


def english_stemmer() -> Callable[[str], str]:
    """Snowball English stemmer from PyStemmer (optional dependency)."""
    try:
        import Stemmer
    except ImportError as exc:
        raise ImportError("stemming needs PyStemmer: pip install PyStemmer") from exc
    return Stemmer.Stemmer("english").stemWord


class BM25Index:
    """Okapi BM25 over string-identified texts (Lucene variant, English stopwords by default)."""

    def __init__(
        self,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
        stopwords: str | list[str] | None = "en",
        stemmer: Callable[[str], str] | None = None,
    ) -> None:
        self.k1, self.b, self.method = k1, b, method
        self.stopwords = stopwords
        self.stemmer = stemmer
        self._ids: list[str] = []
        self._texts: list[str] = []
        self._rows_of: dict[str, list[int]] = {}
        self._retriever = None
        self._tokenizer = None
        self._corpus = None  # a loaded index's texts (bm25s's memory-mapped corpus.jsonl), read on demand

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        if self._corpus is not None:
            raise ValueError("add(): a loaded BM25 index is read-only (build a new one to add documents)")
        ids, texts = list(ids), list(texts)
        if len(ids) != len(texts):
            raise ValueError(f"add(): {len(ids)} ids but {len(texts)} texts")
        bad = [i for i, (x, t) in enumerate(zip(ids, texts, strict=True)) if not x or not isinstance(t, str)]
        if bad:
            raise ValueError(f"add(): {len(bad)} entries lack an id or a string text (positions {bad[:5]})")
        for row, key in enumerate(ids, start=len(self._ids)):
            self._rows_of.setdefault(key, []).append(row)
        self._ids.extend(ids)
        self._texts.extend(texts)
        self._retriever = None

    def _build(self) -> None:
        import bm25s
        from bm25s.tokenization import Tokenizer

        self._tokenizer = Tokenizer(stopwords=self.stopwords or None, stemmer=self.stemmer)
        tokens = self._tokenizer.tokenize(self._texts, update_vocab=True, return_as="tuple", show_progress=False)
        self._retriever = bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
        self._retriever.index(tokens, show_progress=False)

    def text(self, row: int) -> str:
        """The text of document `row` (a loaded index reads it from its corpus file)."""
        return self._texts[row] if self._corpus is None else str(self._corpus[row]["text"])

    def rows(self, key: str) -> list[int]:
        """The document rows of id `key` (empty when it has none)."""
        return list(self._rows_of.get(key, ()))

    def save(self, path: str | Path) -> None:
        """Write the built index to directory `path` in bm25s's format (see the module docstring)."""
        if self.stemmer is not None:
            raise ValueError("save(): an index with a stemmer cannot be saved (the stemmer is code, not data)")
        if self._corpus is not None:
            raise ValueError("save(): this index was loaded; copy its directory instead")
        if self._retriever is None:
            self._build()
        path = Path(path)
        corpus = [{"id": key, "text": text} for key, text in zip(self._ids, self._texts, strict=True)]
        self._retriever.save(str(path), corpus=corpus, show_progress=False)
        self._tokenizer.save_vocab(str(path))
        self._tokenizer.save_stopwords(str(path))
        (path / "ids.json").write_text(json.dumps(self._ids, ensure_ascii=False))

    @classmethod
    def load(cls, path: str | Path) -> BM25Index:
        """An index `save` wrote: the score matrix memory-mapped, texts read only when asked for."""
        import bm25s
        from bm25s.tokenization import Tokenizer

        path = Path(path)
        retriever = bm25s.BM25.load(str(path), load_corpus=True, mmap=True, show_progress=False)
        index = cls(k1=retriever.k1, b=retriever.b, method=retriever.method)
        index._ids = json.loads((path / "ids.json").read_text())
        for row, key in enumerate(index._ids):
            index._rows_of.setdefault(key, []).append(row)
        index._tokenizer = Tokenizer(stopwords=[])
        index._tokenizer.load_vocab(str(path))
        index._tokenizer.load_stopwords(str(path))
        index.stopwords = index._tokenizer.stopwords
        index._retriever, index._corpus = retriever, retriever.corpus
        retriever.corpus = None  # retrieve() would return documents instead of row numbers
        if len(index._corpus) != len(index._ids):
            raise ValueError(f"{path}: {len(index._ids)} ids but {len(index._corpus)} texts")
        return index

    def search(self, queries: Sequence[str], k: int, exclude: Sequence[str | None] | None = None) -> Hits:
        """Top-k (id, score) per query text, best first; `exclude[i]` never appears."""
        if k <= 0:
            raise ValueError(f"k must be positive, got {k}")
        if isinstance(queries, str):
            raise TypeError("search() takes a sequence of query texts, not one string")
        queries = list(queries)
        exclude = check_exclude(exclude, len(queries))
        if not queries or not self._ids:
            return [[] for _ in queries]
        if self._retriever is None:
            self._build()
        extra = max((len(self._rows_of.get(x, ())) for x in exclude if x is not None), default=0)
        depth = min(k + extra, len(self._ids))
        query_ids = self._tokenizer.tokenize(queries, update_vocab=False, return_as="ids", show_progress=False)
        rows, scores = self._retriever.retrieve(query_ids, k=depth, show_progress=False)
        results: Hits = []
        for i in range(len(queries)):
            hits = [
                (self._ids[int(r)], float(s))
                for r, s in zip(rows[i], scores[i], strict=True)
                if s > 0 and self._ids[int(r)] != exclude[i]
            ]
            results.append(hits[:k])
        return results
