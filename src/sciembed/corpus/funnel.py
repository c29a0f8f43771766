"""The S2Full filtering funnel, stage by stage, in DuckDB.

Input tables: `papers` (see papers_table) and `raw_edges(src, citing, cited)` with paper keys (NULL = endpoint
not in the corpus). Output tables: `alive(pk, domain)`, `pairs(a, b, domain)` with `a < b` (so `id_a < id_b`) and
the pair's domain defined as the domain of its anchor `a`, the lexicographically first id, and
`citations(citing, cited, a, b)`: the distinct directed edges behind the surviving pairs (a mutual citation is
one pair and two citations). A citation lives exactly as long as its pair and leaves under the same reason.

From stage 3 on, a paper belongs to the corpus only while it is in some pair: whenever a stage removes pairs, the
papers it leaves without one are removed too, under that stage, as `no_pair_left`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import duckdb

from sciembed.corpus.config import FunnelConfig
from sciembed.corpus.engine import counts, run, scalar
from sciembed.corpus.report import FunnelReport, StageCount

NO_PAIR = "no_pair_left"
UNKNOWN_DOMAIN = "unknown"


@dataclass
class FunnelOutcome:
    report: FunnelReport
    degree_histogram: list[tuple[int, int]] = field(default_factory=list)  # (pairs per paper, papers) after dedup
    domain_pairs_before_cap: dict[str, int] = field(default_factory=dict)
    domain_pairs_after_cap: dict[str, int] = field(default_factory=dict)


class _Funnel:
    """The funnel's tables and counts; one method per stage, run in order by `run_funnel`."""

    def __init__(self, con: duckdb.DuckDBPyConnection, config: FunnelConfig) -> None:
        self.con = con
        self.config = config
        self.outcome = FunnelOutcome(FunnelReport())
        self.has_citations = False  # the `citations` table exists from the dedup stage on

    # -- helpers ---------------------------------------------------------------------------------------------
    def count(self, table: str) -> int:
        return int(scalar(self.con, f"SELECT count(*) FROM {table}"))

    def add(self, name: str, label: str, enabled: bool, papers_removed: dict[str, int],
            pairs_removed: dict[str, int], pairs_table: str = "pairs",
            citations_removed: dict[str, int] | None = None, skipped: str | None = None) -> None:
        """One funnel row. Before dedup every edge is a citation (the pair counts are the citation counts);
        after it, the citations whose pair this stage removed go too, under the pair's reason."""
        pairs = self.count(pairs_table)
        if not self.has_citations:
            citations, citations_removed = pairs, dict(pairs_removed)
        else:
            if citations_removed is None:
                citations_removed = self.sync_citations(pairs_removed)
            citations = self.count("citations")
        self.outcome.report.add(StageCount(name, label, enabled, self.count("alive"), pairs, papers_removed,
                                           pairs_removed, citations, citations_removed, skipped))

    def sync_citations(self, pairs_removed: dict[str, int]) -> dict[str, int]:
        """Drop the citations whose pair is gone; a stage that removed pairs removes them for one reason."""
        before = self.count("citations")
        run(self.con, "CREATE OR REPLACE TEMP TABLE citations AS SELECT c.* FROM citations c SEMI JOIN pairs p "
                      "ON p.a = c.a AND p.b = c.b")
        dropped = before - self.count("citations")
        if not dropped:
            return {}
        if len(pairs_removed) != 1:
            raise AssertionError(f"citations lost without one pair reason to name: {pairs_removed}")
        return {next(iter(pairs_removed)): dropped}

    def remove_papers(self, stage: int, select_pk_reason: str) -> dict[str, int]:
        """Record and remove the alive papers selected as `(pk, reason)`."""
        run(self.con, f"CREATE OR REPLACE TEMP TABLE doomed AS {select_pk_reason}")
        run(self.con, f"INSERT INTO removals SELECT pk, {stage}, reason FROM doomed")
        run(self.con, "CREATE OR REPLACE TEMP TABLE alive AS SELECT * FROM alive ANTI JOIN doomed USING (pk)")
        return counts(self.con, "SELECT reason, count(*) FROM doomed GROUP BY reason")

    def drop_pairs_of_removed(self, reason: str) -> dict[str, int]:
        """Drop the pairs of the papers just removed (`doomed`: small, so the anti-joins are cheap)."""
        before = self.count("pairs")
        run(self.con, """CREATE OR REPLACE TEMP TABLE pairs AS
                         SELECT p.* FROM pairs p ANTI JOIN doomed x ON x.pk = p.a ANTI JOIN doomed y ON y.pk = p.b""")
        dropped = before - self.count("pairs")
        return {reason: dropped} if dropped else {}

    def drop_unpaired(self, stage: int, a: str = "a", b: str = "b", table: str = "pairs") -> dict[str, int]:
        run(self.con, f"CREATE OR REPLACE TEMP TABLE ends AS SELECT {a} AS pk FROM {table} "
                      f"UNION SELECT {b} FROM {table}")
        removed = self.remove_papers(stage, f"SELECT pk, '{NO_PAIR}' AS reason FROM alive ANTI JOIN ends USING (pk)")
        run(self.con, "DROP TABLE ends")
        return removed

    # -- stages ----------------------------------------------------------------------------------------------
    def missing_everywhere(self, column: str, what: str) -> str | None:
        """Why a metadata stage is skipped: no paper has `column` (it would remove every paper), else None."""
        if not self.count("alive") or scalar(self.con, f"SELECT count({column}) FROM alive a JOIN papers p USING (pk)"):
            return None
        return (f"no paper has {what} (GROBID and most PDF parsers give none), so it would remove all "
                f"{self.count('alive'):,}; it is skipped instead")

    def paper_filters(self) -> None:
        """Stages 1-2: venue and primary field; the edges they orphan go in stage 3, under their reason. A stage
        whose metadata no paper has (GROBID TEI has no field of study) is skipped with a note, not run."""
        removed, skipped = {}, None
        if self.config.venue_filter:
            skipped = self.missing_everywhere("p.venue", "a venue")
            if not skipped:
                removed = self.remove_papers(1, """SELECT a.pk, 'missing_venue' AS reason FROM alive a
                                                   JOIN papers p USING (pk) WHERE p.venue IS NULL""")
        self.add("venue", "Venue filter", self.config.venue_filter, removed, {}, pairs_table="raw_edges",
                 skipped=skipped)
        removed, skipped = {}, None
        if self.config.field_filter:
            skipped = self.missing_everywhere("a.domain", "a field of study")
            if not skipped:
                removed = self.remove_papers(2, "SELECT pk, 'missing_field' AS reason FROM alive WHERE domain IS NULL")
        run(self.con, f"UPDATE alive SET domain = '{UNKNOWN_DOMAIN}' WHERE domain IS NULL")
        self.add("field", "Field-of-study filter", self.config.field_filter, removed, {}, pairs_table="raw_edges",
                 skipped=skipped)

    def valid_edges(self) -> None:
        """Stage 3: raw edges whose endpoints both exist and survived stages 1-2 (reason: the earlier stage)."""
        run(self.con, """CREATE TEMP TABLE edge_fate AS
               SELECT e.citing, e.cited,
                      CASE WHEN e.citing IS NULL OR e.cited IS NULL THEN 'dangling_endpoint'
                           WHEN least(ra.stage, rb.stage) = 1 THEN 'endpoint_missing_venue'
                           WHEN least(ra.stage, rb.stage) = 2 THEN 'endpoint_missing_field' END AS reason
               FROM raw_edges e LEFT JOIN removals ra ON ra.pk = e.citing
               LEFT JOIN removals rb ON rb.pk = e.cited""")
        dropped = counts(self.con, "SELECT reason, count(*) FROM edge_fate WHERE reason IS NOT NULL GROUP BY reason")
        run(self.con, "CREATE TEMP TABLE edges AS SELECT citing, cited FROM edge_fate WHERE reason IS NULL")
        run(self.con, "DROP TABLE edge_fate")
        removed = self.drop_unpaired(3, "citing", "cited", "edges")
        self.add("edges", "Valid edges (both ends kept)", True, removed, dropped, pairs_table="edges")

    def dedup(self) -> None:
        """Stage 4: one undirected pair per paper pair (a < b); self-citations dropped."""
        self_loops = self.count("edges WHERE citing = cited")
        run(self.con, """CREATE TEMP TABLE pair_groups AS
               SELECT least(citing, cited) AS a, greatest(citing, cited) AS b, count(*) AS n,
                      CASE WHEN min(citing) = max(citing) THEN 1 ELSE 2 END AS directions
               FROM edges WHERE citing <> cited GROUP BY ALL""")
        dup, rev = self.con.execute("SELECT coalesce(sum(n - directions), 0), coalesce(sum(directions - 1), 0) "
                                    "FROM pair_groups").fetchall()[0]
        run(self.con, "CREATE TEMP TABLE pairs AS SELECT a, b FROM pair_groups")
        run(self.con, """CREATE TEMP TABLE citations AS
                         SELECT DISTINCT citing, cited, least(citing, cited) AS a, greatest(citing, cited) AS b
                         FROM edges WHERE citing <> cited""")
        self.has_citations = True
        run(self.con, "DROP TABLE pair_groups")
        run(self.con, "DROP TABLE edges")
        dropped = {k: int(v) for k, v in (("self_citation", self_loops), ("duplicate_edge", dup),
                                          ("reverse_duplicate", rev)) if v}
        # A reverse duplicate folds into its pair but stays a citation of its own.
        cited = {k: v for k, v in dropped.items() if k != "reverse_duplicate"}
        self.add("dedup", "Bidirectional dedup, self-citations", True, self.drop_unpaired(4), dropped,
                 citations_removed=cited)

    def degree(self) -> None:
        """Stage 5: papers in more than `max_degree` deduplicated pairs go, with all their pairs."""
        run(self.con, """CREATE TEMP TABLE degree AS SELECT pk, count(*) AS deg
                         FROM (SELECT a AS pk FROM pairs UNION ALL SELECT b FROM pairs) GROUP BY pk""")
        self.outcome.degree_histogram = [
            (int(d), int(n)) for d, n in
            self.con.execute("SELECT deg, count(*) FROM degree GROUP BY deg ORDER BY deg").fetchall()]
        removed, dropped = {}, {}
        if self.config.degree_filter:
            removed = self.remove_papers(
                5, f"SELECT pk, 'high_degree' AS reason FROM degree WHERE deg > {self.config.max_degree}")
            dropped = self.drop_pairs_of_removed("high_degree_endpoint")
            removed.update(self.drop_unpaired(5))
        run(self.con, "DROP TABLE degree")
        self.add("degree", f"High-degree filter (> {self.config.max_degree})", self.config.degree_filter, removed,
                 dropped)

    def text_quality(self) -> None:
        """Stage 6: a body long enough, in enough sections, to cut windows from."""
        chars, sections = self.config.min_body_chars, self.config.min_body_sections
        removed, dropped = {}, {}
        if self.config.text_filter:
            removed = self.remove_papers(6, f"""
                SELECT pk, CASE WHEN p.body_chars < {chars} THEN 'short_body' ELSE 'few_body_sections' END AS reason
                FROM alive JOIN papers p USING (pk) WHERE p.body_chars < {chars} OR p.body_sections < {sections}""")
            dropped = self.drop_pairs_of_removed("low_text_quality_endpoint")
            removed.update(self.drop_unpaired(6))
        self.add("text", f"Text quality (≥ {chars:,} chars, ≥ {sections} sections)", self.config.text_filter,
                 removed, dropped)

    def domain_cap(self) -> None:
        """Stage 7: at most `domain_cap` pairs per (anchor) domain: those with the smallest md5 of
        "{seed}:{id_a}:{id_b}" as a little-endian 128-bit integer, ties by a, then b (recomputable anywhere)."""
        cap = self.config.domain_cap
        run(self.con, "CREATE OR REPLACE TEMP TABLE pairs AS SELECT p.a, p.b, x.domain FROM pairs p "
                      "JOIN alive x ON x.pk = p.a")
        before = counts(self.con, "SELECT domain, count(*) FROM pairs GROUP BY domain")
        removed, dropped = {}, {}
        over = [d for d, n in before.items() if n > cap]
        if self.config.domain_cap_filter and over:
            n_before = self.count("pairs")
            run(self.con, "CREATE OR REPLACE TEMP TABLE over_cap AS SELECT unnest(?::VARCHAR[]) AS domain", [over])
            run(self.con, f"""CREATE OR REPLACE TEMP TABLE pairs AS
                    SELECT a, b, domain FROM pairs ANTI JOIN over_cap USING (domain)
                    UNION ALL
                    SELECT a, b, domain FROM (
                        SELECT p.a, p.b, p.domain,
                               row_number() OVER (PARTITION BY p.domain
                                                  ORDER BY md5_number(concat(?, ':', pa.id, ':', pb.id)), p.a, p.b)
                                   AS rk
                        FROM pairs p SEMI JOIN over_cap USING (domain)
                        JOIN papers pa ON pa.pk = p.a JOIN papers pb ON pb.pk = p.b)
                    WHERE rk <= {cap}""", [str(self.config.seed)])
            run(self.con, "DROP TABLE over_cap")
            dropped = {"domain_cap": n_before - self.count("pairs")}
            removed = self.drop_unpaired(7)
        self.outcome.domain_pairs_before_cap = before
        self.outcome.domain_pairs_after_cap = counts(self.con, "SELECT domain, count(*) FROM pairs GROUP BY domain")
        self.add("cap", f"Domain cap (≤ {cap:,} per domain)", self.config.domain_cap_filter, removed, dropped)


def run_funnel(con: duckdb.DuckDBPyConnection, config: FunnelConfig, input_removed_papers: dict[str, int],
               input_removed_pairs: dict[str, int]) -> FunnelOutcome:
    """Run stages 1-7 over `papers` and `raw_edges`; the input row records what loading rejected."""
    funnel = _Funnel(con, config)
    run(con, "CREATE TEMP TABLE removals (pk BIGINT, stage INTEGER, reason VARCHAR)")
    run(con, "CREATE TEMP TABLE alive AS SELECT pk, field AS domain FROM papers")
    funnel.add("input", "Input", True, input_removed_papers, input_removed_pairs, pairs_table="raw_edges")
    funnel.paper_filters()
    funnel.valid_edges()
    funnel.dedup()
    funnel.degree()
    funnel.text_quality()
    funnel.domain_cap()
    return funnel.outcome
