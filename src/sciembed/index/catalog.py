"""The durable side of a served collection: papers' metadata, every view's text, and live updates (SQLite).

One file, ``collection.sqlite``, next to an index directory's ``index/``:

    papers(id, title, year, venue, domain, card)   card: JSON (abstract, sections with roles, ids)
    views(row, paper_id, kind, section, text, vector, removed)
    meta(key, value)                                base_rows: rows held by index/ itself
    live_papers(id, paper)                          papers added live: their text (zlib JSON), for the
                                                    companions of a fused search (`search/live_overlay.py`)
    pending(seq, id, paper, queued_at, error)       papers acknowledged but not yet indexed (queued adds:
                                                    `index/write_queue.py`), in arrival order; queued_at:
                                                    when (Unix time); error: why one could not be indexed

Rows below ``base_rows`` live in the faiss file (vector NULL here); live rows carry their vector, so a restart
replays them in row order and then hides removed rows. Each add or delete is one SQLite transaction (WAL,
``synchronous=FULL``): on disk when it returns, rolled back if the process dies in it — SQLite, not a
hand-written log, because that atomicity is exactly what it is tested for.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
import zlib
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.ioutil.atomic import fsync_dir, fsync_file
from sciembed.papers.model import Paper
from sciembed.papers.text_cleaning import count_words
from sciembed.views import View

CATALOG = "collection.sqlite"
TEXT_LIMIT = 4000  # characters of a view kept for snippets

SCHEMA = """
CREATE TABLE IF NOT EXISTS papers (
    id TEXT PRIMARY KEY, title TEXT NOT NULL, year INTEGER, venue TEXT, domain TEXT, card TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS views (
    row INTEGER PRIMARY KEY, paper_id TEXT NOT NULL, kind TEXT NOT NULL, section INTEGER, text TEXT NOT NULL,
    vector BLOB, removed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS views_paper ON views (paper_id);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS live_papers (id TEXT PRIMARY KEY, paper BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS pending (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL, paper BLOB NOT NULL, queued_at REAL NOT NULL,
    error TEXT
);
CREATE INDEX IF NOT EXISTS pending_paper ON pending (id);
"""


def paper_card(paper: Paper) -> dict[str, Any]:
    """What `GET /papers/{id}` shows: metadata and sections with roles (headings and sizes, not full text)."""
    return {"id": paper.id, "title": paper.title, "abstract": paper.abstract, "year": paper.year,
            "venue": paper.venue, "venue_short": paper.venue_short,
            "authors": [{"name": a.name, "affiliation": a.affiliation} for a in paper.authors],
            "domain": paper.domain, "fields_of_study": list(paper.fields_of_study),
            "external_ids": dict(paper.external_ids.items()),
            "sections": [{"heading": s.heading, "number": s.number, "role": str(s.role), "words": count_words(s.text)}
                         for s in paper.sections],
            "references": len(paper.references), "flags": list(paper.flags),
            "source": (paper.source or "").split(":", 1)[0] or None}  # the reader, not the server's file path


def _paper_row(paper: Paper) -> tuple:
    return (paper.id, paper.title, paper.year, paper.venue, paper.domain, json.dumps(paper_card(paper)))


def _live_row(paper: Paper) -> tuple:
    """The text of a paper added live (references left out: no view reads them), zlib-compressed JSON."""
    data = paper.to_dict()
    data["references"] = []
    return (paper.id, zlib.compress(json.dumps(data, ensure_ascii=False).encode("utf-8"), 3))


def _unpack(blob: bytes) -> Paper:
    return Paper.from_dict(json.loads(zlib.decompress(blob)))


def _view_row(row: int, view: View, vector: np.ndarray | None) -> tuple:
    blob = None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()
    return (row, view.paper_id, str(view.kind), view.section, view.text[:TEXT_LIMIT], blob)


_INSERT_VIEWS = "INSERT INTO views (row, paper_id, kind, section, text, vector) VALUES (?, ?, ?, ?, ?, ?)"


def _connect(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=FULL")
    return con


def write_base_catalog(path: Path, indexed: Iterable[tuple[Paper, list[View]]]) -> int:
    """Write a new catalog for an index's base rows (papers with their views, in row order); returns the rows.
    Temp file, fsync, rename: a crash leaves no catalog rather than one that passes for finished."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp)
    con.executescript(SCHEMA)
    row = 0
    with con:
        for paper, views in indexed:
            con.execute("INSERT OR REPLACE INTO papers VALUES (?, ?, ?, ?, ?, ?)", _paper_row(paper))
            con.executemany(_INSERT_VIEWS, [_view_row(row + i, view, None) for i, view in enumerate(views)])
            row += len(views)
        con.execute("INSERT INTO meta VALUES ('base_rows', ?)", (str(row),))
    con.close()
    fsync_file(tmp)
    os.replace(tmp, path)
    fsync_dir(path.parent)
    return row


@dataclass(frozen=True)
class ViewInfo:
    row: int
    paper_id: str
    kind: str
    section: int | None
    text: str


class Catalog:
    """Reads from any thread (one connection per thread); writes through one connection, one at a time."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: no catalog")
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []  # every reader connection, to close them all
        self._opened_lock = threading.Lock()
        self._writer = _connect(self.path)
        self._writer.executescript(SCHEMA)
        self.base_rows = int(self._read("SELECT value FROM meta WHERE key = 'base_rows'")[0][0])

    def _reader(self) -> sqlite3.Connection:
        con = getattr(self._local, "con", None)
        if con is None:
            con = self._local.con = _connect(self.path)
            with self._opened_lock:
                self._opened.append(con)
        return con

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        return self._reader().execute(sql, tuple(args)).fetchall()

    def _read_in(self, sql: str, keys: Sequence[Any]) -> list[tuple]:
        """`sql` with its ``{marks}`` one placeholder per key (no rows for no keys)."""
        return self._read(sql.format(marks=",".join("?" * len(keys))), keys) if keys else []

    # ------------------------------------------------------------------ reads

    def count_papers(self) -> int:
        return int(self._read("SELECT count(*) FROM papers")[0][0])

    def card(self, paper_id: str) -> dict[str, Any] | None:
        rows = self._read("SELECT card FROM papers WHERE id = ?", (paper_id,))
        return json.loads(rows[0][0]) if rows else None

    def has_paper(self, paper_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM papers WHERE id = ?", (paper_id,)))

    def summaries(self, ids: Sequence[str]) -> dict[str, tuple[str, int | None, str | None, str | None]]:
        """id -> (title, year, venue, domain) for the given ids."""
        rows = self._read_in("SELECT id, title, year, venue, domain FROM papers WHERE id IN ({marks})", ids)
        return {r[0]: r[1:] for r in rows}

    def people(self, ids: Sequence[str]) -> dict[str, tuple[list[str], str | None]]:
        """id -> (author names, venue short name) from the papers' cards (empty for a card written before them)."""
        rows = self._read_in("SELECT id, json_extract(card, '$.authors'), json_extract(card, '$.venue_short') "
                             "FROM papers WHERE id IN ({marks})", ids)
        return {r[0]: ([a.get("name", "") for a in json.loads(r[1] or "[]")], r[2]) for r in rows}

    def titles(self) -> dict[str, str]:
        """id -> title of every paper the collection holds now."""
        return {r[0]: r[1] for r in self._read("SELECT id, title FROM papers")}

    def external_ids(self) -> list[tuple[str, dict[str, Any]]]:
        """(id, {kind: value}) of every paper: what `paper_lookup` resolves DOIs, arXiv or ACL ids by."""
        rows = self._read("SELECT id, json_extract(card, '$.external_ids') FROM papers")
        return [(r[0], json.loads(r[1] or "{}")) for r in rows]

    def filter_fields(self) -> dict[str, tuple[int | None, str, str, str]]:
        """id -> (year, venue, domain, venue short name; text lower-cased), for filtering in memory."""
        rows = self._read("SELECT id, year, venue, domain, json_extract(card, '$.venue_short') FROM papers")
        return {r[0]: (r[1], (r[2] or "").lower(), (r[3] or "").lower(), (r[4] or "").lower()) for r in rows}

    def views(self, rows: Sequence[int]) -> dict[int, ViewInfo]:
        found = self._read_in("SELECT row, paper_id, kind, section, text FROM views WHERE row IN ({marks})", rows)
        return {r[0]: ViewInfo(*r) for r in found}

    def added_vectors(self, dim: int) -> tuple[list[int], list[str], np.ndarray]:
        """Rows added after the base index (row order), their paper ids and vectors."""
        found = self._read("SELECT row, paper_id, vector FROM views WHERE row >= ? ORDER BY row", (self.base_rows,))
        vectors = np.frombuffer(b"".join(r[2] for r in found), dtype=np.float32).reshape(len(found), dim)
        return [r[0] for r in found], [r[1] for r in found], vectors

    def live_papers(self) -> list[Paper]:
        """The papers added live (since the base index was built) that the collection still holds."""
        return [_unpack(r[0]) for r in self._read("SELECT paper FROM live_papers ORDER BY id")]

    def live_paper(self, paper_id: str) -> Paper | None:
        rows = self._read("SELECT paper FROM live_papers WHERE id = ?", (paper_id,))
        return _unpack(rows[0][0]) if rows else None

    def pending(self, limit: int) -> list[tuple[int, Paper, float]]:
        """The first `limit` queued papers still to index (seq order), failed ones left out: (queue entry, paper,
        when it was queued)."""
        rows = self._read("SELECT seq, paper, queued_at FROM pending WHERE error IS NULL ORDER BY seq LIMIT ?",
                          (limit,))
        return [(r[0], _unpack(r[1]), r[2]) for r in rows]

    def pending_counts(self) -> tuple[int, int]:
        """(papers waiting to be indexed, papers that could not be)."""
        row = self._read("SELECT count(*) - count(error), count(error) FROM pending")[0]
        return int(row[0]), int(row[1])

    def pending_state(self, paper_id: str) -> tuple[int, str | None] | None:
        """The newest queued copy of `paper_id`: (papers ahead of it, its error or None); None when none is queued."""
        rows = self._read("SELECT seq, error FROM pending WHERE id = ? ORDER BY seq DESC LIMIT 1", (paper_id,))
        if not rows:
            return None
        ahead = self._read("SELECT count(*) FROM pending WHERE seq < ? AND error IS NULL", (rows[0][0],))[0][0]
        return int(ahead), rows[0][1]

    def alive(self, seqs: Sequence[int]) -> set[int]:
        """Which of these queued papers are still queued (not deleted, not replaced by a direct add since)."""
        return {r[0] for r in self._read_in("SELECT seq FROM pending WHERE seq IN ({marks})", seqs)}

    def removed_rows(self) -> list[int]:
        return [r[0] for r in self._read("SELECT row FROM views WHERE removed = 1 ORDER BY row")]

    # ----------------------------------------------------------------- writes

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction on the writer connection (``BEGIN IMMEDIATE``), rolled back on any error."""
        con = self._writer
        con.execute("BEGIN IMMEDIATE")
        try:
            yield con
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    def enqueue(self, papers: Sequence[Paper]) -> int:
        """One transaction: queue the papers to be indexed (durable when it returns); the papers now waiting."""
        with self._transaction() as con:
            now = time.time()
            con.executemany("INSERT INTO pending (id, paper, queued_at) VALUES (?, ?, ?)",
                            [(*_live_row(p), now) for p in papers])
            waiting = con.execute("SELECT count(*) FROM pending WHERE error IS NULL").fetchone()[0]
        return int(waiting)

    def fail_pending(self, seqs: Sequence[int], error: str) -> None:
        """Keep these queued papers, marked with why they could not be indexed (no longer retried)."""
        with self._writer:
            self._writer.executemany("UPDATE pending SET error = ? WHERE seq = ?", [(error[:2000], s) for s in seqs])

    def add(self, papers: Sequence[Paper], views: Sequence[View], vectors: np.ndarray, first_row: int,
            queued: Sequence[int] | None = None) -> list[int]:
        """One transaction: replace the papers (their old views marked removed, those rows returned), insert the
        new views. `queued`: the queue entries these papers came from (only those leave the queue); None, a
        direct add, which leaves no older queued copy of these papers behind to overwrite it later."""
        with self._transaction() as con:
            old: list[int] = []
            for paper in papers:
                old += [r[0] for r in con.execute(
                    "SELECT row FROM views WHERE paper_id = ? AND removed = 0", (paper.id,))]
            if old:
                con.executemany("UPDATE views SET removed = 1 WHERE row = ?", [(r,) for r in old])
            con.executemany("INSERT OR REPLACE INTO papers VALUES (?, ?, ?, ?, ?, ?)", [_paper_row(p) for p in papers])
            con.executemany("INSERT OR REPLACE INTO live_papers VALUES (?, ?)", [_live_row(p) for p in papers])
            con.executemany(_INSERT_VIEWS, [_view_row(first_row + i, v, vectors[i]) for i, v in enumerate(views)])
            if queued is None:
                con.executemany("DELETE FROM pending WHERE id = ?", [(p.id,) for p in papers])
            else:
                con.executemany("DELETE FROM pending WHERE seq = ?", [(s,) for s in queued])
        return old

    def delete(self, paper_id: str) -> list[int] | None:
        """One transaction: the paper, its views and its queued copies go; None when none of them was there."""
        with self._transaction() as con:
            queued = con.execute("DELETE FROM pending WHERE id = ?", (paper_id,)).rowcount
            if not con.execute("SELECT 1 FROM papers WHERE id = ?", (paper_id,)).fetchall():
                return [] if queued else None  # nothing else changed: committing is rolling back
            rows = [r[0] for r in con.execute("SELECT row FROM views WHERE paper_id = ? AND removed = 0", (paper_id,))]
            con.execute("UPDATE views SET removed = 1 WHERE paper_id = ?", (paper_id,))
            con.execute("DELETE FROM papers WHERE id = ?", (paper_id,))
            con.execute("DELETE FROM live_papers WHERE id = ?", (paper_id,))
        return rows

    def close(self) -> None:
        """Close every connection, the other threads' readers too (before the file is swapped by a compaction:
        a reader closed later would take the new file's WAL for its own and delete it)."""
        with self._opened_lock:
            for con in self._opened:
                con.close()
            self._opened.clear()
        self._writer.close()
