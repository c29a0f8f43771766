"""Retrieval: exact dense search (faiss), BM25 (bm25s), several views per paper.

The names below are imported on first use, so that a light submodule (`query_files`, read by
`index search --server`) does not pull in faiss, bm25s and numpy with its package.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_HOMES = {"BM25Index": "bm25", "DenseIndex": "dense", "IndexLoadError": "dense", "MultiVectorIndex": "multivector"}
__all__ = ["BM25Index", "DenseIndex", "IndexLoadError", "MultiVectorIndex"]


def __getattr__(name: str) -> Any:
    if name in _HOMES:
        return getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
