"""Retrieval: exact dense search (faiss), BM25 (bm25s), several views per paper."""

from sciembed.retrieval.bm25 import BM25Index
from sciembed.retrieval.dense import DenseIndex, IndexLoadError
from sciembed.retrieval.multivector import MultiVectorIndex

__all__ = ["BM25Index", "DenseIndex", "IndexLoadError", "MultiVectorIndex"]
