"""On-disk embedding cache: re-running an evaluation encodes only texts it has not seen.

One SQLite file per encoder fingerprint under ``<cache_dir>/embeddings/``, entries keyed by the text's
hash; SQLite makes writes atomic and safe for concurrent runs. Each vector (raw float32) carries a checksum
over (the file's random id, fingerprint, key, vector); an entry failing it, its size or finiteness is
encoded again and counted (`CacheStats.damaged`, a warning); an unreadable file is a `CacheError`. The
checksum is unkeyed: it catches accidents, not deliberate edits.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import warnings
from collections.abc import Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sciembed.errors import SciembedInputError
from sciembed.models.encoder import Encoder, EncoderWrapper, check_texts

_CHUNK = 500  # keys per SELECT ... IN (...), below SQLite's variable limit


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).digest()


def entry_check(fingerprint: str, key: bytes, vec: bytes, file_id: str = "") -> bytes:
    """The checksum stored beside each vector: a changed vector, key, model or file no longer matches it."""
    return hashlib.blake2b(file_id.encode() + b"\0" + fingerprint.encode() + key + vec, digest_size=8).digest()


class CacheError(SciembedInputError, RuntimeError):
    """The cache file does not hold what its name promises."""


class EmbeddingCache:
    """Vectors by (fingerprint, text hash) in ``<root>/embeddings/<fingerprint>.sqlite``."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root) / "embeddings"
        self.damaged = 0  # entries the last `get` found unusable
        self._file_id = ""  # the open file's own id (meta.file_id), part of every entry's checksum

    def path(self, fingerprint: str) -> Path:
        return self.root / f"{fingerprint}.sqlite"

    def _connect(self, fingerprint: str, dim: int) -> sqlite3.Connection:
        self.root.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path(fingerprint), timeout=60)
        try:
            with conn:
                conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
                # `entries` (with a checksum) replaces the unchecked `vectors` table of earlier versions.
                conn.execute("CREATE TABLE IF NOT EXISTS entries (key BLOB PRIMARY KEY, vec BLOB, chk BLOB) "
                             "WITHOUT ROWID")
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('dim', ?)", (str(dim),))
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('fingerprint', ?)", (fingerprint,))
                conn.execute("INSERT OR IGNORE INTO meta VALUES ('file_id', ?)", (secrets.token_hex(16),))
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as err:
            conn.close()
            raise CacheError(f"{self.path(fingerprint)}: damaged embedding cache ({err}); delete this file and "
                             "its vectors are encoded again") from err
        self._file_id = str(meta.get("file_id", ""))
        problem = None
        if meta.get("fingerprint") != fingerprint:
            problem = f"holds vectors of encoder {meta.get('fingerprint')}, not {fingerprint}"
        elif not str(meta.get("dim", "")).isdigit() or int(meta["dim"]) != dim:
            problem = f"holds {meta.get('dim')}-d vectors, encoder gives {dim}-d"
        if problem:
            conn.close()
            raise CacheError(f"{self.path(fingerprint)}: {problem}")
        return conn

    def get(self, fingerprint: str, dim: int, keys: Sequence[bytes]) -> dict[bytes, np.ndarray]:
        """The cached vectors among `keys` whose size, checksum and values are intact (see `damaged`)."""
        found: dict[bytes, np.ndarray] = {}
        self.damaged = 0
        if not keys or not self.path(fingerprint).exists():
            return found
        with closing(self._connect(fingerprint, dim)) as conn:
            for start in range(0, len(keys), _CHUNK):
                chunk = list(keys[start : start + _CHUNK])
                marks = ",".join("?" * len(chunk))
                try:
                    rows = conn.execute(f"SELECT key, vec, chk FROM entries WHERE key IN ({marks})", chunk).fetchall()
                except sqlite3.DatabaseError as err:
                    raise CacheError(f"{self.path(fingerprint)}: damaged embedding cache ({err}); delete this "
                                     "file and its vectors are encoded again") from err
                for key, blob, chk in rows:
                    usable = isinstance(blob, bytes) and isinstance(key, bytes) and len(blob) == 4 * dim
                    vec = np.frombuffer(blob, dtype=np.float32) if usable else None
                    if vec is None or chk != entry_check(fingerprint, bytes(key), bytes(blob), self._file_id) \
                            or not np.isfinite(vec).all():
                        self.damaged += 1  # encoded again and replaced by the caller
                        continue
                    found[bytes(key)] = vec
        return found

    def put(self, fingerprint: str, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        if len(keys) != len(vectors):
            raise ValueError(f"{len(keys)} keys but {len(vectors)} vectors")
        if not keys:
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        blobs = [bytes(v) for v in vectors]
        with closing(self._connect(fingerprint, vectors.shape[1])) as conn, conn:
            rows = [(k, b, entry_check(fingerprint, bytes(k), b, self._file_id))
                    for k, b in zip(keys, blobs, strict=True)]
            conn.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?)", rows)

    def stored_dim(self, fingerprint: str) -> int | None:
        """The dimension this fingerprint's file records (None: no file, or not readable as one)."""
        if not self.path(fingerprint).exists():
            return None
        with closing(sqlite3.connect(self.path(fingerprint))) as conn:
            try:
                row = conn.execute("SELECT value FROM meta WHERE key='dim'").fetchone()
            except sqlite3.DatabaseError:
                return None
        return int(row[0]) if row and str(row[0]).isdigit() and int(row[0]) > 0 else None

    def count(self, fingerprint: str) -> int:
        if not self.path(fingerprint).exists():
            return 0
        with closing(sqlite3.connect(self.path(fingerprint))) as conn:
            try:
                return int(conn.execute("SELECT COUNT(*) FROM entries").fetchone()[0])
            except sqlite3.OperationalError:  # a cache of an earlier version: nothing usable
                return 0


@dataclass
class CacheStats:
    """What the last `encode` call did: texts asked for, served from cache, encoded."""

    requested: int = 0
    hits: int = 0
    encoded: int = 0
    damaged: int = 0  # entries found but not used (checksum, size or values wrong): encoded again


class CachedEncoder(EncoderWrapper):
    """An `Encoder` that encodes only the texts its cache lacks (each distinct text once)."""

    def __init__(self, encoder: Encoder, cache_dir: str | Path) -> None:
        self.encoder = encoder
        self.cache = EmbeddingCache(cache_dir)
        self.last = CacheStats()

    def encode(self, texts: Sequence[str], *, batch_size: int | None = None, show_progress: bool = True) -> np.ndarray:
        texts = check_texts(texts)
        fingerprint, dim = self.encoder.fingerprint, self.encoder.dim
        keys = [text_key(t) for t in texts]
        first: dict[bytes, int] = {}
        for i, key in enumerate(keys):
            first.setdefault(key, i)
        vectors = self.cache.get(fingerprint, dim, list(first))
        damaged = self.cache.damaged
        if damaged:
            warnings.warn(f"{self.cache.path(fingerprint)}: {damaged} damaged cache entries ignored and re-encoded",
                          stacklevel=2)
        missing = [k for k in first if k not in vectors]
        # an encoder whose calls can fail half way (a remote server) sets `cache_every`: what it has
        # encoded is committed every that many texts, so a re-run resumes instead of starting over
        every = getattr(self.encoder, "cache_every", None)
        step = every if isinstance(every, int) and every > 0 else max(1, len(missing))
        for start in range(0, len(missing), step):
            part = missing[start : start + step]
            fresh = self.encoder.encode([texts[first[k]] for k in part], batch_size=batch_size,
                                        show_progress=show_progress)
            self.cache.put(fingerprint, part, fresh)
            vectors.update(zip(part, fresh, strict=True))
        fresh_keys = set(missing)
        self.last = CacheStats(len(texts), sum(1 for k in keys if k not in fresh_keys), len(missing), damaged)
        return _stack(keys, vectors, dim)


def _stack(keys: Iterable[bytes], vectors: dict[bytes, np.ndarray], dim: int) -> np.ndarray:
    rows = [vectors[k] for k in keys]
    return np.vstack(rows).astype(np.float32, copy=False) if rows else np.zeros((0, dim), dtype=np.float32)
