"""BM25 lexical baseline (bm25s), with the same `search` contract as the dense indexes.

Documents are collected by `add` and indexed on the first search after a change (bm25s builds its score
matrix in one pass). Only documents sharing a term with the query are hits (score > 0): zero-score padding
would flatter recall. `save` / `load` keep bm25s's own format (score matrix, vocabularies, the texts as a
memory-mapped ``corpus.jsonl``) plus ``ids.json``, so a loaded index never re-tokenises the collection.

Scores are bm25s's (a query word counts once per occurrence), each distinct word's postings read once.
``query_terms=N`` keeps a query's N words of highest BM25 weight (as Lucene's MoreLikeThis); off by default:
on ACL paper-to-paper it lost References NDCG@10 at every N up to 400 (docs/p2p.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from scipy import sparse

from sciembed.retrieval.hits import Hits, check_exclude

PAPER_QUERY_TERMS = None  # whole queries: keeping a paper's best 25-400 words lost NDCG on ACL (docs/p2p.md)


class BM25Index:
    """Okapi BM25 over string-identified texts (Lucene variant, English stopwords by default)."""

    def __init__(self, *, k1: float = 1.5, b: float = 0.75, method: str = "lucene",
                 stopwords: str | list[str] | None = "en", stemmer: Callable[[str], str] | None = None,
                 query_terms: int | None = PAPER_QUERY_TERMS) -> None:
        if query_terms is not None and query_terms < 1:
            raise ValueError(f"query_terms must be positive or None, got {query_terms}")
        self.k1, self.b, self.method = k1, b, method
        self.query_terms, self.stopwords, self.stemmer = query_terms, stopwords, stemmer
        self._ids: list[str] = []
        self._texts: list[str] = []
        self._rows_of: dict[str, list[int]] = {}
        self._retriever = None
        self._postings: sparse.csr_matrix | None = None  # the score matrix for `scores`, made on first use
        self._tokenizer = None
        self._avg_len: float | None = None  # mean document length in tokens (live overlays score with it)
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
        self._retriever, self._postings = None, None

    def _build(self) -> None:
        import bm25s
        from bm25s.tokenization import Tokenizer

        self._tokenizer = Tokenizer(stopwords=self.stopwords or None, stemmer=self.stemmer)
        tokens = self._tokenizer.tokenize(self._texts, update_vocab=True, return_as="tuple", show_progress=False)
        self._retriever = bm25s.BM25(k1=self.k1, b=self.b, method=self.method)
        self._retriever.index(tokens, show_progress=False)
        self._avg_len = float(np.mean([len(ids) for ids in tokens.ids])) if tokens.ids else 0.0

    def _weights(self, terms: np.ndarray, tf: np.ndarray, length: int) -> np.ndarray:
        """BM25 weight of each term of one text of `length` words (`tf` occurrences each), under the index's
        statistics (documents, document frequencies, mean length), as bm25s weighs its documents."""
        from bm25s.scoring import _select_idf_scorer, _select_tfc_scorer

        retriever = self._retriever
        indptr = retriever.scores["indptr"]
        idf_of, tfc_of = _select_idf_scorer(retriever.idf_method), _select_tfc_scorer(retriever.method)
        df = indptr[terms + 1] - indptr[terms]
        idf = np.array([idf_of(int(d), N=retriever.scores["num_docs"]) for d in df], dtype=np.float32)
        weights = idf * tfc_of(tf_array=tf.astype(np.float32), l_d=max(1, length), l_avg=self._avg_len, k1=self.k1,
                               b=self.b, delta=retriever.delta)
        if retriever.nonoccurrence_array is not None:  # BM25L / BM25+: bm25s keeps the same offset
            weights = weights - retriever.nonoccurrence_array[terms]
        return weights

    def _ensure_avg_len(self) -> None:
        if self._avg_len is None:  # a loaded index saved before its length was kept: count it once
            lengths = [len(ids) for ids in self._tokenizer.tokenize(
                [self.text(r) for r in range(len(self._ids))], update_vocab=False, return_as="ids",
                show_progress=False)]
            self._avg_len = float(np.mean(lengths)) if lengths else 0.0

    def term_weights(self, texts: Sequence[str]) -> sparse.csr_matrix:
        """BM25 weights (idf × term-frequency part) of texts that are *not* in the index, one row per text.

        Scored with the index's own statistics (documents, document frequencies, mean length), as bm25s
        scores its documents: a text identical to an indexed one gets that one's row exactly. Words the
        index never saw have no column (no query can ask for them). `query_counts(q) @ rows.T` = scores.
        """
        if self._retriever is None:
            self._build()
        self._ensure_avg_len()
        n_vocab = len(self._retriever.scores["indptr"]) - 1
        ids = self._tokenizer.tokenize(list(texts), update_vocab=False, return_as="ids", show_progress=False)
        data, cols, starts = [], [], [0]
        for text, own in zip(texts, ids, strict=True):
            terms, tf = np.unique(np.asarray(own, dtype=np.int64), return_counts=True)
            data.append(self._weights(terms, tf, self._length(text)))
            cols.append(terms)
            starts.append(starts[-1] + len(terms))
        return sparse.csr_matrix((np.concatenate(data) if data else np.zeros(0, np.float32),
                                  np.concatenate(cols) if cols else np.zeros(0, np.int64), starts),
                                 shape=(len(starts) - 1, n_vocab), dtype=np.float32)

    def pruned(self, query_ids: Sequence[int], text: str) -> list[int]:
        """`query_ids` (query `text` tokenised) restricted to its `query_terms` distinct terms of
        highest BM25 weight (equal weights: the lower term id first), every occurrence of a kept term kept in
        order; the query whole when it has no more distinct terms than that."""
        if self.query_terms is None:
            return list(query_ids)
        terms, tf = np.unique(np.asarray(query_ids, dtype=np.int64), return_counts=True)
        if len(terms) <= self.query_terms:
            return list(query_ids)
        self._ensure_avg_len()
        weights = self._weights(terms, tf, self._length(text))
        kept = set(terms[np.lexsort((terms, -weights))[:self.query_terms]].tolist())
        return [t for t in query_ids if t in kept]

    def _length(self, text: str) -> int:
        """Words of `text` that are not stopwords, known to the index or not: its length as a document."""
        tokenizer = self._tokenizer
        stop = set(tokenizer.stopwords or ())
        return sum(w not in stop for w in tokenizer.splitter(text.lower() if tokenizer.lower else text))

    def query_counts(self, queries: Sequence[str]) -> tuple[sparse.csr_matrix, np.ndarray]:
        """Per query: how often each known word `search` scores occurs (bm25s sums a repeated query word once
        per occurrence; a long query keeps its `query_terms` best words, as in `search`), and the score every
        document gets for words it lacks (0 but for BM25L / BM25+)."""
        if self._retriever is None:
            self._build()
        n_vocab = len(self._retriever.scores["indptr"]) - 1
        queries = list(queries)
        ids = self._tokenizer.tokenize(queries, update_vocab=False, return_as="ids", show_progress=False)
        rows = [np.asarray(self.pruned(q, text), dtype=np.int64) for q, text in zip(ids, queries, strict=True)]
        counts = sparse.csr_matrix((np.ones(sum(len(r) for r in rows), np.float32),
                                    np.concatenate(rows) if rows else np.zeros(0, np.int64),
                                    np.cumsum([0, *(len(r) for r in rows)])), shape=(len(rows), n_vocab))
        counts.sum_duplicates()
        absent = self._retriever.nonoccurrence_array
        base = np.array([absent[r].sum() if absent is not None else 0.0 for r in rows], dtype=np.float32)
        return counts, base

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
        (path / "stats.json").write_text(json.dumps({"avg_len": self._avg_len}))

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
        if (path / "stats.json").is_file():
            index._avg_len = json.loads((path / "stats.json").read_text()).get("avg_len")
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
        query_ids = [self.pruned(q, text) for q, text in zip(query_ids, queries, strict=True)]
        results: Hits = []
        for ids, skip in zip(query_ids, exclude, strict=True):
            rows, scores = self._top(self.scores(ids), depth)
            hits = [(self._ids[r], float(s)) for r, s in zip(rows.tolist(), scores, strict=True)
                    if s > 0 and self._ids[r] != skip]
            results.append(hits[:k])
        return results

    def scores(self, query_ids: Sequence[int]) -> np.ndarray:
        """Every document's BM25 score for a tokenised query, as bm25s's `get_scores_from_ids` sums it (a word
        once per occurrence), in one sparse product: each distinct word's postings are read once."""
        retriever = self._retriever
        if self._postings is None:  # bm25s's score matrix (word -> documents) as scipy CSR, its arrays shared
            indptr = retriever.scores["indptr"]
            small = len(retriever.scores["indices"]) < 2**31  # int32 offsets: no copy of the int32 doc ids
            self._postings = sparse.csr_matrix(
                (retriever.scores["data"], retriever.scores["indices"], indptr.astype(np.int32) if small else indptr),
                shape=(len(indptr) - 1, retriever.scores["num_docs"]), copy=False)
        terms, tf = np.unique(np.asarray(query_ids, dtype=np.int64), return_counts=True)
        query = sparse.csr_matrix((tf.astype(np.float32), terms, [0, len(terms)]), shape=(1, self._postings.shape[0]))
        out = (query @ self._postings).toarray()[0]
        if retriever.nonoccurrence_array is not None:  # BM25L / BM25+: the score of the words a document lacks
            out += np.float32((retriever.nonoccurrence_array[terms] * tf).sum())
        return out

    @staticmethod
    def _top(scores: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
        """The `depth` best rows and their scores, best first (equal scores: the lower row first)."""
        rows = np.argpartition(-scores, depth - 1)[:depth] if depth < len(scores) else np.arange(len(scores))
        rows = rows[np.lexsort((rows, -scores[rows]))]
        return rows, scores[rows]
