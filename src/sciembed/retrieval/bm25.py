"""BM25 lexical baseline (bm25s), with the same `search` contract as the dense indexes.

bm25s builds its sparse score matrix in one pass, so documents are collected
by `add` and indexed on the first search after a change. Only documents that
share at least one term with the query are hits (score > 0): padding a ranking
with arbitrary zero-score documents would flatter recall.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

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

    def __len__(self) -> int:
        return len(self._ids)

    def add(self, ids: Sequence[str], texts: Sequence[str]) -> None:
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
