"""Matching keys for citation resolution: normalized external ids and titles, as DuckDB macros, so papers and
references are normalized by the same expression (URL prefixes, arXiv versions, case; accents and punctuation)."""

from __future__ import annotations

import duckdb

# Resolution order: the first kind that matches exactly one corpus paper wins.
KEY_KINDS: tuple[str, ...] = ("paper_id", "doi", "arxiv", "s2", "pmid", "pmc", "openalex", "acl", "title")
EXTERNAL_ID_KINDS: tuple[str, ...] = KEY_KINDS[1:-1]

_MACROS = {
    "norm_title": r"""nullif(trim(regexp_replace(regexp_replace(strip_accents(lower(v)),
                    '[\pP\pS]+', ' ', 'g'), '[\s\pZ]+', ' ', 'g')), '')""",
    "norm_doi": r"""nullif(lower(regexp_replace(trim(v), '^(https?://(dx\.)?doi\.org/|doi:\s*)', '', 'i')), '')""",
    "norm_arxiv": r"""nullif(regexp_replace(regexp_replace(lower(trim(v)),
                    '^(https?://(www\.)?arxiv\.org/(abs|pdf)/|arxiv:\s*)', ''), '(v[0-9]+)?(\.pdf)?$', ''), '')""",
    "norm_s2": r"""nullif(lower(trim(v)), '')""",
    "norm_pmid": r"""nullif(regexp_replace(lower(trim(v)), '^pmid:\s*', ''), '')""",
    "norm_pmc": r"""CASE WHEN nullif(regexp_replace(upper(trim(v)), '^PMC(ID)?:?\s*', ''), '') IS NOT NULL
                    THEN 'PMC' || regexp_replace(upper(trim(v)), '^PMC(ID)?:?\s*', '') END""",
    "norm_openalex": r"""nullif(upper(regexp_replace(trim(v), '^https?://openalex\.org/', '', 'i')), '')""",
    "norm_acl": r"""nullif(lower(trim(v)), '')""",
}


def install_macros(con: duckdb.DuckDBPyConnection) -> None:
    for name, body in _MACROS.items():
        con.execute(f"CREATE OR REPLACE MACRO {name}(v) AS {body}")


def normalize_title(title: str | None) -> str | None:
    """The title key used for reference matching (None when nothing is left)."""
    return normalize_titles([title])[0]


def normalize_titles(titles: list[str | None]) -> list[str | None]:
    """`normalize_title` of many titles in one DuckDB query (one connection, not one per title)."""
    if not titles:
        return []
    con = duckdb.connect(":memory:")
    try:
        install_macros(con)
        rows = con.execute("SELECT norm_title(t) FROM unnest(?::VARCHAR[]) WITH ORDINALITY AS u(t, i) ORDER BY i",
                           [list(titles)]).fetchall()
        return [r[0] for r in rows]
    finally:
        con.close()
