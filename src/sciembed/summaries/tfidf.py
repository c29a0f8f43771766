"""The offline stand-in for an LLM search query (no endpoint given): a paper's top TF-IDF terms, labelled
``tfidf-terms`` wherever reported."""

from __future__ import annotations

import numpy as np

from sciembed.papers.model import Paper

TFIDF_TERMS = 8
TFIDF_SOURCE = "tfidf-terms (offline fallback, not LLM queries)"


def tfidf_queries(papers: list[Paper], terms: int = TFIDF_TERMS) -> dict[str, str]:
    """The abstract's top TF-IDF terms (fit on the sample), in order of weight: the offline query."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(stop_words="english", token_pattern=r"(?u)\b[a-zA-Z][a-zA-Z-]+\b", sublinear_tf=True)
    matrix = vectorizer.fit_transform([p.abstract for p in papers]).tocsr()
    vocab = vectorizer.get_feature_names_out()
    out = {}
    for row, paper in enumerate(papers):
        start, end = matrix.indptr[row], matrix.indptr[row + 1]
        cols, weights = matrix.indices[start:end], matrix.data[start:end]
        top = cols[np.lexsort((cols, -weights))][:terms]
        out[paper.id] = " ".join(vocab[c] for c in top)
    return out
