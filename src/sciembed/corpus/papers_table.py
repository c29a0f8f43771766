"""Load the per-paper facts the funnel needs (ids, venue, primary field, body size, matching keys; no texts)
from an ingested `papers.parquet`. The integer key `pk` follows id order, so `pk_a < pk_b` means `id_a < id_b`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from sciembed.corpus.engine import run, scalar, sql_str


@dataclass(frozen=True)
class PaperLoad:
    read: int
    accepted: int
    rejected: dict[str, int] = field(default_factory=dict)  # reason -> papers


# The primary field is the first non-blank entry of fields_of_study; a reader
# that only knows a domain puts it in `domain`, which is the fallback.
_PRIMARY_FIELD = """coalesce(
    list_filter(list_transform(coalesce(fields_of_study, []), lambda f: trim(f)), lambda f: f <> '')[1],
    nullif(trim(domain), ''))"""
_VISIBLE = r"[^\s\pZ]"  # a section counts when its text has a visible character (regexp: no copy, unlike trim)


def load_papers(con: duckdb.DuckDBPyConnection, papers_path: Path) -> PaperLoad:
    """Create table `papers` (one row per distinct id, first occurrence in file order wins)."""
    run(con, f"""
        CREATE TEMP TABLE paper_rows AS
        SELECT file_row_number AS row_no, id,
               nullif(trim(venue), '') AS venue,
               {_PRIMARY_FIELD} AS field,
               coalesce(list_sum(list_transform(sections, lambda s: length(coalesce(s.text, '')))), 0) AS body_chars,
               len(list_filter(coalesce(sections, []), lambda s: regexp_matches(coalesce(s.text, ''), '{_VISIBLE}')))
                   AS body_sections,
               title, external_ids,
               coalesce(len("references"), 0) AS n_refs
        FROM read_parquet({sql_str(papers_path)}, file_row_number = true)
        """)
    read = int(scalar(con, "SELECT count(*) FROM paper_rows"))
    empty = int(scalar(con, "SELECT count(*) FROM paper_rows WHERE id IS NULL OR trim(id) = ''"))
    run(con, """
        CREATE TEMP TABLE papers AS
        SELECT row_number() OVER (ORDER BY id) AS pk, *
        FROM (SELECT * FROM paper_rows WHERE id IS NOT NULL AND trim(id) <> ''
              QUALIFY row_number() OVER (PARTITION BY id ORDER BY row_no) = 1)
        """)
    run(con, "DROP TABLE paper_rows")
    accepted = int(scalar(con, "SELECT count(*) FROM papers"))
    rejected = {k: v for k, v in (("duplicate_id", read - empty - accepted), ("empty_id", empty)) if v}
    return PaperLoad(read=read, accepted=accepted, rejected=rejected)
