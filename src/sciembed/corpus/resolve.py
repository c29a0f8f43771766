"""Citation edges from the references inside ingested papers.

A reference resolves by the first key in `KEY_KINDS` order (its `paper_id`, the external ids, the normalized
title) that matches exactly one corpus paper; a key shared by several resolves nothing and is counted, never
guessed. Every reference ends in one outcome: resolved + unresolved = references read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from sciembed.corpus.engine import counts, run, scalar, sql_str
from sciembed.corpus.keys import EXTERNAL_ID_KINDS, KEY_KINDS, install_macros

UNRESOLVED_REASONS = ("ambiguous_title", "ambiguous_id", "not_in_corpus", "no_key")


@dataclass(frozen=True)
class ReferenceStats:
    read: int = 0
    resolved: dict[str, int] = field(default_factory=dict)  # key kind -> references
    unresolved: dict[str, int] = field(default_factory=dict)  # reason -> references

    @property
    def edges(self) -> int:
        return sum(self.resolved.values())

    def to_dict(self) -> dict:
        return {"read": self.read, "resolved": self.resolved, "unresolved": self.unresolved}


def _key_union(source: str, uid: str, paper_id: str, ext: str, title: str) -> str:
    """`(uid, kind, value)` rows for every non-empty matching key of each row of `source`."""
    parts = [f"SELECT {uid} AS uid, 'paper_id' AS kind, nullif(trim({paper_id}), '') AS value FROM {source}"]
    parts += [f"SELECT {uid}, '{k}', norm_{k}({ext}.{k}) FROM {source}" for k in EXTERNAL_ID_KINDS]
    parts.append(f"SELECT {uid}, 'title', norm_title({title}) FROM {source}")
    return "SELECT * FROM (" + " UNION ALL ".join(parts) + ") WHERE value IS NOT NULL"


def resolve_references(con: duckdb.DuckDBPyConnection, papers_path: Path) -> ReferenceStats:
    """Append resolved reference edges to `raw_edges` (src 0); needs tables `papers`, `raw_edges`."""
    total = int(scalar(con, "SELECT coalesce(sum(n_refs), 0) FROM papers"))
    if total == 0:
        return ReferenceStats()
    install_macros(con)
    run(con, f"""
        CREATE TEMP TABLE refs AS
        SELECT row_number() OVER () AS ref_uid, p.pk AS citing,
               r.ref.paper_id AS paper_id, r.ref.title AS title, r.ref.external_ids AS external_ids
        FROM (SELECT file_row_number AS row_no, unnest("references") AS ref
              FROM read_parquet({sql_str(papers_path)}, file_row_number = true)) r
        JOIN papers p USING (row_no)
        """)
    run(con, "CREATE TEMP TABLE key_index AS SELECT kind, value, min(uid) AS pk, count(DISTINCT uid) AS n FROM ("
        + _key_union("papers", "pk", "id", "external_ids", "title") + ") GROUP BY kind, value")
    run(con, "CREATE TEMP TABLE ref_keys AS " + _key_union("refs", "ref_uid", "paper_id", "external_ids", "title"))
    kinds = "[" + ", ".join(f"'{k}'" for k in KEY_KINDS) + "]"
    run(con, f"""
        CREATE TEMP TABLE ref_outcome AS
        WITH m AS (
            SELECT k.uid AS ref_uid, k.kind, i.pk, i.n, list_position({kinds}, k.kind) AS prio
            FROM ref_keys k JOIN key_index i USING (kind, value)),
        agg AS (
            SELECT ref_uid,
                   arg_min(pk, prio) FILTER (WHERE n = 1) AS cited,
                   arg_min(kind, prio) FILTER (WHERE n = 1) AS method,
                   bool_or(n > 1 AND kind = 'title') AS ambiguous_title,
                   bool_or(n > 1 AND kind <> 'title') AS ambiguous_id
            FROM m GROUP BY ref_uid),
        keyed AS (SELECT DISTINCT uid AS ref_uid FROM ref_keys)
        SELECT r.citing, a.cited,
               CASE WHEN a.cited IS NOT NULL THEN a.method
                    WHEN a.ambiguous_title THEN 'ambiguous_title'
                    WHEN a.ambiguous_id THEN 'ambiguous_id'
                    WHEN kd.ref_uid IS NOT NULL THEN 'not_in_corpus'
                    ELSE 'no_key' END AS outcome
        FROM refs r LEFT JOIN agg a USING (ref_uid) LEFT JOIN keyed kd USING (ref_uid)
        """)
    outcomes = counts(con, "SELECT outcome, count(*) FROM ref_outcome GROUP BY outcome")
    run(con, "INSERT INTO raw_edges SELECT 0, citing, cited FROM ref_outcome WHERE cited IS NOT NULL")
    for table in ("refs", "key_index", "ref_keys", "ref_outcome"):
        run(con, f"DROP TABLE {table}")
    return ReferenceStats(read=total, resolved={k: v for k, v in outcomes.items() if k in KEY_KINDS},
                          unresolved={k: v for k, v in outcomes.items() if k in UNRESOLVED_REASONS})
