"""The on-disk LLM cache: one SQLite file, one row per (request, sample); the key is described in docs/llm.md.

SQLite because every insert is one atomic transaction (a kill -9 never leaves a half-written row); the
rollback journal (no WAL side files) keeps it one self-contained file to copy to another machine.

Each row carries a check over its key, its reply and the file's own random id (`meta.file_id`): a row whose
bytes changed or that was copied in from another cache is asked again and counted (`damaged`). The check is
unkeyed: it guards against accidents (disk errors, hand edits, mixed-up files), not against deliberate edits.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS replies (
    key TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    model TEXT NOT NULL,
    template TEXT NOT NULL,
    template_sha256 TEXT NOT NULL,
    params TEXT NOT NULL,
    input_sha256 TEXT NOT NULL,
    sample INTEGER NOT NULL,
    text TEXT NOT NULL,
    finish_reason TEXT,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    created REAL NOT NULL,
    chk TEXT
);
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
OWN_TABLES = {"replies", "meta"}


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class CacheKey:
    endpoint: str  # "completions" | "chat"
    model: str
    template: str  # name.vN
    template_sha256: str
    params: str  # canonical JSON of the sampling parameters
    input_sha256: str  # of the rendered prompt / messages
    sample: int

    @property
    def digest(self) -> str:
        return sha256_text(canonical_json([self.endpoint, self.model, self.template, self.template_sha256,
                                           self.params, self.input_sha256, self.sample]))


@dataclass(frozen=True)
class CachedReply:
    text: str
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None


class CacheFileError(SciembedInputError, RuntimeError):
    """The cache path exists but is not a sciembed LLM cache."""


class LLMCache:
    """Thread-safe get/put over one SQLite file; every put is committed before it returns."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self.damaged = 0  # rows found but not used (check failed, wrong types), asked again
        try:
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            self._refuse_foreign()
            self._db.execute("PRAGMA journal_mode=DELETE")
            self._db.executescript(_SCHEMA)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(replies)")}
            if "chk" not in columns:  # a cache of an earlier version: its rows have no check, are asked again
                self._db.execute("ALTER TABLE replies ADD COLUMN chk TEXT")
            row = self._db.execute("SELECT value FROM meta WHERE name='schema_version'").fetchone()
        except sqlite3.DatabaseError as err:
            self._db.close()
            raise CacheFileError(f"{self.path}: not an LLM cache (SQLite said: {err})") from err
        if row is None:
            self._db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
        elif int(row[0]) != SCHEMA_VERSION:
            raise CacheFileError(f"{self.path}: cache schema {row[0]}, this sciembed reads {SCHEMA_VERSION}")
        self._db.execute("INSERT OR IGNORE INTO meta VALUES ('file_id', ?)", (secrets.token_hex(16),))
        self._file_id = self._db.execute("SELECT value FROM meta WHERE name='file_id'").fetchone()[0]

    def _refuse_foreign(self) -> None:
        """Another application's SQLite database is refused before anything is written into it."""
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables - OWN_TABLES or (tables and "replies" not in tables):
            shown = ", ".join(sorted(tables)[:5])
            raise CacheFileError(f"{self.path}: not an LLM cache (an SQLite database with tables {shown}); "
                                 "point --llm-cache at a new file or an existing sciembed LLM cache")

    def _check(self, digest: str, reply: CachedReply) -> str:
        return sha256_text(canonical_json([self._file_id, digest, reply.text, reply.finish_reason,
                                           reply.prompt_tokens, reply.completion_tokens]))[:32]

    def get(self, key: CacheKey) -> CachedReply | None:
        """The cached reply, or None when absent or damaged (counted in `damaged`, with a warning)."""
        with self._lock:
            row = self._db.execute("SELECT text, finish_reason, prompt_tokens, completion_tokens, chk FROM replies "
                                   "WHERE key=?", (key.digest,)).fetchone()
        if row is None:
            return None
        text, finish, prompt, completion, chk = row
        typed = isinstance(text, str) and isinstance(finish, str | None) and all(
            isinstance(n, int | None) for n in (prompt, completion))
        reply = CachedReply(text, finish, prompt, completion) if typed else None
        if reply is None or chk != self._check(key.digest, reply):
            with self._lock:
                self.damaged += 1
            warnings.warn(f"{self.path}: a damaged cache row ({key.template}, sample {key.sample}) was ignored "
                          "and is asked again (changed bytes, wrong types, or copied from another cache)",
                          stacklevel=2)
            return None
        return reply

    def put(self, key: CacheKey, reply: CachedReply) -> None:
        with self._lock:
            values = (key.digest, key.endpoint, key.model, key.template, key.template_sha256, key.params,
                      key.input_sha256, key.sample, reply.text, reply.finish_reason, reply.prompt_tokens,
                      reply.completion_tokens, time.time(), self._check(key.digest, reply))
            self._db.execute("INSERT OR REPLACE INTO replies VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", values)

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM replies").fetchone()[0]

    def summary(self) -> dict[str, Any]:
        """Rows per (model, template) — what a cache file holds, for `cache info`-style output."""
        with self._lock:
            rows = self._db.execute(
                "SELECT model, template, COUNT(*), SUM(COALESCE(prompt_tokens,0)+COALESCE(completion_tokens,0)) "
                "FROM replies GROUP BY model, template ORDER BY model, template").fetchall()
        return {"path": str(self.path), "rows": [{"model": m, "template": t, "replies": n, "tokens": tok}
                                                 for m, t, n, tok in rows]}

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> LLMCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
