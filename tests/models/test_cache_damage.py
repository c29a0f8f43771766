"""Issue 23, defects 14, 15 and 22 (embedding cache): NULL rows, transplanted rows, a damaged file named."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest

from fakes.models import HashingEncoder
from sciembed.models import CachedEncoder
from sciembed.models.cache import CacheError

TEXTS = ["graph neural network", "protein folding model", "sparse attention kernel"]


def filled(root: Path) -> tuple[CachedEncoder, Path]:
    cached = CachedEncoder(HashingEncoder(dim=16), root)
    cached.encode(TEXTS, show_progress=False)
    return cached, cached.cache.path(cached.fingerprint)


def test_null_vector_rows_are_reencoded_not_a_traceback(tmp_path):
    cached, path = filled(tmp_path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE entries SET vec = NULL")
    with pytest.warns(UserWarning, match="damaged"):
        again = cached.encode(TEXTS, show_progress=False)
    assert cached.last.damaged == 3 and cached.last.encoded == 3
    assert np.allclose(again, HashingEncoder(dim=16).encode(TEXTS, show_progress=False))


def test_rows_transplanted_from_another_cache_file_are_detected(tmp_path):
    """Entries are bound to the file they were written to: rows (checksums and all) copied in from another
    cache file of the same model are not trusted; the file's own entries still are."""
    _, source = filled(tmp_path / "a")
    target_encoder = CachedEncoder(HashingEncoder(dim=16), tmp_path / "b")
    target_encoder.encode(TEXTS[:1], show_progress=False)
    target = target_encoder.cache.path(target_encoder.fingerprint)
    with sqlite3.connect(target) as db:
        db.execute("ATTACH DATABASE ? AS other", (str(source),))
        db.execute("INSERT OR IGNORE INTO entries SELECT * FROM other.entries")
    with pytest.warns(UserWarning, match="damaged"):
        target_encoder.encode(TEXTS, show_progress=False)
    assert (target_encoder.last.hits, target_encoder.last.damaged) == (1, 2)


def test_a_damaged_cache_file_is_named_with_a_hint(tmp_path):
    cached, path = filled(tmp_path)
    path.write_bytes(b"this is no longer an SQLite file" * 200)
    with pytest.raises(CacheError) as err:
        cached.encode(TEXTS, show_progress=False)
    assert str(path) in str(err.value) and "delete" in str(err.value)
