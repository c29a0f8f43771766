"""Zero-overlap train / val / test splits over the funnel's pairs.

Papers, not pairs, are assigned to splits; a pair or citation whose papers land in different splits is dropped
(`cross_split`). A random paper split would leave most test papers without a test neighbor, so held-out papers
are taken as *citation balls*: seeds, drawn per domain in seeded-hash order (md5 of "{seed}:split:{paper_id}" as
a little-endian 128-bit integer), join with all their pair partners until the domain's share is reached, so
every seed keeps all its relevant documents. Val seeds are drawn only from papers neither in nor next to the test
set. Everything else is training. The seeds are the benchmark's *anchors* (S2Full: 10,022 among 63,095 test
candidates), marked in `splits.parquet`; the citation benchmark asks one query per anchor.

S2Full's 2.4% test share gives only a few dozen anchors on a few thousand papers (48 on the 2,940 ACL papers at
10%), so with a fractional `test_size` the test split keeps taking balls until it has `min_test_anchors`, while
it holds at most `MAX_TEST_SHARE` of the pair papers and leaves `VAL_ROOM` times the val target outside the test
zone (`SplitStats` records the limits and seeds added). A test size given as a paper count is taken as it is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import duckdb

from sciembed.corpus.config import FunnelConfig
from sciembed.corpus.engine import counts, run, scalar
from sciembed.errors import SciembedInputError

ROUNDS = 4  # seeding rounds per split (the first does nearly all; later ones top up what ball overlaps lost)
MAX_TEST_SHARE = 0.5  # the anchor top-up never grows the test split past this share of the pair papers
VAL_ROOM = 1.5  # ... and leaves this many times the val target outside the test zone, for val seeds and balls


class SplitSizeError(SciembedInputError, ValueError):
    """The requested split sizes do not fit the corpus left after the funnel."""


def split_targets(domain_papers: dict[str, int], size: int | float) -> dict[str, int]:
    """Papers wanted per domain: a fraction of each domain (rounded half up), or a count spread over
    domains in proportion to their size (largest remainder; ties go to the domain name sorted first)."""
    if isinstance(size, float):
        return {d: math.floor(size * n + 0.5) for d, n in sorted(domain_papers.items())}
    total = sum(domain_papers.values())
    if size > total:
        raise SplitSizeError(f"split size {size} exceeds the {total} papers left after the funnel")
    if total == 0:
        return {}
    quotas = {d: size * n / total for d, n in domain_papers.items()}
    out = {d: math.floor(q) for d, q in quotas.items()}
    left = size - sum(out.values())
    for d in sorted(quotas, key=lambda d: (-(quotas[d] - out[d]), d))[:left]:
        out[d] += 1
    return dict(sorted(out.items()))


@dataclass
class SplitStats:
    cross_split_pairs: int = 0
    cross_split_citations: int = 0
    splits: dict[str, dict] = field(default_factory=dict)
    anchor_top_up: dict | None = None  # min_test_anchors, max_test_papers, seeds_added (None: not applied)

    def to_dict(self) -> dict:
        out = {"cross_split_pairs": self.cross_split_pairs, "cross_split_citations": self.cross_split_citations,
               "pair_domain": "domain of paper_a (the anchor)", "citation_domain": "domain of the citing paper",
               "splits": self.splits}
        if self.anchor_top_up is not None:
            out["anchor_top_up"] = self.anchor_top_up
        return out


def _seeds(con: duckdb.DuckDBPyConnection, table: str, candidates: str, targets: dict[str, int],
           first_always: bool) -> None:
    """Seeds: per domain, the prefix of the key order whose ball sizes (1 + degree) sum nearest the target
    (with `first_always`, the first seed is taken whenever the target is positive)."""
    first = "s.taken = 0 OR" if first_always else ""
    run(con, "CREATE OR REPLACE TEMP TABLE targets (domain VARCHAR, target BIGINT)")
    if targets:
        con.executemany("INSERT INTO targets VALUES (?, ?)", list(targets.items()))
    run(con, f"""CREATE OR REPLACE TEMP TABLE {table} AS
            SELECT pk FROM (
                SELECT c.pk, c.domain, 1 + c.deg AS ball,
                       sum(1 + c.deg) OVER (PARTITION BY c.domain ORDER BY c.key, c.pk
                                            ROWS UNBOUNDED PRECEDING) - (1 + c.deg) AS taken
                FROM split_candidates c {candidates}) s
            JOIN targets t USING (domain)
            WHERE s.taken < t.target AND ({first} 2 * s.taken + s.ball <= 2 * t.target)""")


def _ball(con: duckdb.DuckDBPyConnection, table: str, seeds: str) -> None:
    run(con, f"""CREATE OR REPLACE TEMP TABLE {table} AS
            SELECT pk FROM {seeds}
            UNION SELECT p.b FROM pairs p JOIN {seeds} s ON s.pk = p.a
            UNION SELECT p.a FROM pairs p JOIN {seeds} s ON s.pk = p.b""")


def _grow(con: duckdb.DuckDBPyConnection, name: str, exclude: str, targets: dict[str, int]) -> int:
    """Fill `{name}_papers` with whole balls until each domain is nearest its target; returns the seed count.
    Balls overlap, so each further round (at most ROUNDS) seeds only the remaining per-domain deficit."""
    run(con, f"CREATE OR REPLACE TEMP TABLE {name}_papers (pk BIGINT)")
    run(con, f"CREATE OR REPLACE TEMP TABLE {name}_anchors (pk BIGINT)")
    seeds = 0
    for round_ in range(ROUNDS):
        have = counts(con, f"SELECT domain, count(*) FROM {name}_papers JOIN split_candidates USING (pk) GROUP BY 1")
        deficit = {d: t - have.get(d, 0) for d, t in targets.items() if t > have.get(d, 0)}
        if not deficit:
            break
        _seeds(con, "new_seeds", f"ANTI JOIN {name}_papers USING (pk) {exclude}", deficit, first_always=round_ == 0)
        added = int(scalar(con, "SELECT count(*) FROM new_seeds"))
        if not added:
            break
        seeds += added
        run(con, f"INSERT INTO {name}_anchors SELECT pk FROM new_seeds")
        _ball(con, "new_members", "new_seeds")
        run(con, f"INSERT INTO {name}_papers SELECT pk FROM new_members ANTI JOIN {name}_papers USING (pk)")
    for table in ("new_seeds", "new_members"):
        run(con, f"DROP TABLE IF EXISTS {table}")
    return seeds


def _top_up_anchors(con: duckdb.DuckDBPyConnection, wanted: int, max_test: int, val_target: int) -> int:
    """More test balls until the split has `wanted` anchors; returns the seeds added.

    The new seeds are the longest prefix of the key order (all domains, papers not yet in test) within both
    limits of the module docstring; both only get harder as the prefix grows, so a binary search finds it.
    """
    need = wanted - int(scalar(con, "SELECT count(*) FROM test_anchors"))
    if need <= 0:
        return 0
    _ball(con, "trial_zone", "test_papers")
    outside = int(scalar(con, "SELECT count(*) FROM split_candidates ANTI JOIN trial_zone USING (pk)"))
    room = min(math.ceil(VAL_ROOM * val_target), outside)  # a corpus already short of room keeps what it has
    run(con, """CREATE OR REPLACE TEMP TABLE top_up_order AS
                SELECT pk, row_number() OVER (ORDER BY key, pk) AS rk
                FROM split_candidates ANTI JOIN test_papers USING (pk)""")

    def fits_test(k: int) -> bool:
        run(con, f"CREATE OR REPLACE TEMP TABLE new_seeds AS SELECT pk FROM top_up_order WHERE rk <= {k}")
        _ball(con, "new_members", "new_seeds")
        run(con, "CREATE OR REPLACE TEMP TABLE trial AS SELECT pk FROM test_papers UNION SELECT pk FROM new_members")
        return int(scalar(con, "SELECT count(*) FROM trial")) <= max_test

    def fits(k: int) -> bool:
        if not fits_test(k):
            return False
        _ball(con, "trial_zone", "trial")
        return int(scalar(con, "SELECT count(*) FROM split_candidates ANTI JOIN trial_zone USING (pk)")) >= room

    hi = min(need, int(scalar(con, "SELECT count(*) FROM top_up_order")))
    # A test split without any anchor takes its first ball whatever the val room (as _grow's first seed does).
    lo = 1 if hi and not int(scalar(con, "SELECT count(*) FROM test_anchors")) and fits_test(1) else 0
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if fits(mid) else (lo, mid - 1)
    if lo:
        fits_test(lo)
        run(con, "INSERT INTO test_anchors SELECT pk FROM new_seeds")
        run(con, "INSERT INTO test_papers SELECT pk FROM new_members ANTI JOIN test_papers USING (pk)")
    for table in ("top_up_order", "new_seeds", "new_members", "trial", "trial_zone"):
        run(con, f"DROP TABLE IF EXISTS {table}")
    return lo


def assign_splits(con: duckdb.DuckDBPyConnection, config: FunnelConfig) -> SplitStats:
    """Create `paper_split(pk, split)` over `alive` and set `pairs.split` (NULL for cross-split pairs, then dropped)."""
    run(con, """CREATE OR REPLACE TEMP TABLE split_candidates AS
           SELECT x.pk, x.domain, d.deg, md5_number(concat(?, ':split:', p.id)) AS key
           FROM alive x JOIN papers p USING (pk)
           JOIN (SELECT pk, count(*) AS deg FROM (SELECT a AS pk FROM pairs UNION ALL SELECT b FROM pairs)
                 GROUP BY pk) d USING (pk)""", [str(config.seed)])
    domain_papers = counts(con, "SELECT domain, count(*) FROM split_candidates GROUP BY domain")
    total = sum(domain_papers.values())
    test_t = split_targets(domain_papers, config.test_size)
    val_t = split_targets(domain_papers, config.val_size)
    if sum(test_t.values()) + sum(val_t.values()) > total:
        raise SplitSizeError(f"test ({sum(test_t.values())}) + val ({sum(val_t.values())}) papers exceed the "
                             f"{total} papers left after the funnel")
    seeds = {"test": _grow(con, "test", "", test_t)}
    top_up = None
    if isinstance(config.test_size, float) and config.test_size > 0 and config.min_test_anchors:
        cap = math.floor(MAX_TEST_SHARE * total)
        top_up = {"min_test_anchors": config.min_test_anchors, "max_test_papers": cap, "val_room": VAL_ROOM,
                  "seeds_added": _top_up_anchors(con, config.min_test_anchors, cap, sum(val_t.values()))}
        seeds["test"] += top_up["seeds_added"]
    _ball(con, "test_zone", "test_papers")  # test papers and their neighbors: no val seed here
    seeds["val"] = _grow(con, "val", "ANTI JOIN test_zone USING (pk)", val_t)
    run(con, """CREATE OR REPLACE TEMP TABLE paper_split AS
           SELECT x.pk, CASE WHEN t.pk IS NOT NULL THEN 'test' WHEN v.pk IS NOT NULL THEN 'val' ELSE 'train' END
                  AS split,
                  (ta.pk IS NOT NULL OR va.pk IS NOT NULL) AS anchor
           FROM alive x LEFT JOIN test_papers t USING (pk) LEFT JOIN val_papers v USING (pk)
           LEFT JOIN test_anchors ta USING (pk) LEFT JOIN val_anchors va USING (pk)""")
    run(con, """CREATE OR REPLACE TEMP TABLE pairs AS
           SELECT p.a, p.b, p.domain, CASE WHEN sa.split = sb.split THEN sa.split END AS split
           FROM pairs p JOIN paper_split sa ON sa.pk = p.a JOIN paper_split sb ON sb.pk = p.b""")
    cross = int(scalar(con, "SELECT count(*) FROM pairs WHERE split IS NULL"))
    run(con, "DELETE FROM pairs WHERE split IS NULL")
    run(con, """CREATE OR REPLACE TEMP TABLE citations AS
           SELECT c.citing, c.cited, CASE WHEN sa.split = sb.split THEN sa.split END AS split
           FROM citations c JOIN paper_split sa ON sa.pk = c.citing JOIN paper_split sb ON sb.pk = c.cited""")
    cross_citations = int(scalar(con, "SELECT count(*) FROM citations WHERE split IS NULL"))
    run(con, "DELETE FROM citations WHERE split IS NULL")
    stats = SplitStats(cross_split_pairs=cross, cross_split_citations=cross_citations, anchor_top_up=top_up)
    for split, targets in (("train", None), ("val", val_t), ("test", test_t)):
        stats.splits[split] = _split_stats(con, split, targets, seeds.get(split))
    for table in ("split_candidates", "targets", "test_papers", "test_zone", "val_papers", "test_anchors",
                  "val_anchors"):
        run(con, f"DROP TABLE IF EXISTS {table}")
    return stats


def _split_stats(con: duckdb.DuckDBPyConnection, split: str, targets: dict[str, int] | None,
                 seeds: int | None) -> dict:
    """Per-domain papers, pairs, queries (papers with >= 1 pair inside the split) and relevant docs per query."""
    rows = con.execute(
        """WITH ins AS (SELECT a, b FROM pairs WHERE split = $split),
                deg AS (SELECT pk, count(*) AS deg FROM (SELECT a AS pk FROM ins UNION ALL SELECT b FROM ins)
                        GROUP BY pk)
           SELECT x.domain, count(*) AS papers, count(deg.pk) AS queries, sum(deg.deg) AS relevant
           FROM paper_split s JOIN alive x USING (pk) LEFT JOIN deg USING (pk)
           WHERE s.split = $split GROUP BY x.domain ORDER BY x.domain""",
        {"split": split},
    ).fetchall()
    pairs = counts(con, "SELECT domain, count(*) FROM pairs WHERE split = ? GROUP BY domain", [split])
    citations = counts(con, "SELECT x.domain, count(*) FROM citations c JOIN alive x ON x.pk = c.citing "
                            "WHERE c.split = ? GROUP BY x.domain", [split])
    domains = {}
    relevant_total = 0
    for domain, papers, queries, relevant in rows:
        relevant_total += int(relevant or 0)
        domains[domain] = {"papers": int(papers), "pairs": pairs.get(domain, 0), "citations": citations.get(domain, 0),
                           "queries": int(queries),
                           "mean_relevant_per_query": round(float(relevant or 0) / queries, 4) if queries else 0.0}
        if targets is not None:
            domains[domain]["target_papers"] = targets.get(domain, 0)
    papers = sum(d["papers"] for d in domains.values())
    queries = sum(d["queries"] for d in domains.values())
    out = {"papers": papers, "pairs": sum(pairs.values()), "citations": sum(citations.values()), "queries": queries,
           "papers_without_in_split_pair": papers - queries,
           "mean_relevant_per_query": round(relevant_total / queries, 4) if queries else 0.0, "domains": domains}
    if targets is not None:
        out["target_papers"] = sum(targets.values())
        out["seeds"] = seeds
        anchor_rel = con.execute(
            """WITH ins AS (SELECT a, b FROM pairs WHERE split = $split),
                    deg AS (SELECT pk, count(*) AS deg FROM (SELECT a AS pk FROM ins UNION ALL SELECT b FROM ins)
                            GROUP BY pk)
               SELECT count(*), sum(deg.deg) FROM paper_split s LEFT JOIN deg USING (pk)
               WHERE s.split = $split AND s.anchor""",
            {"split": split},
        ).fetchone()
        out["anchors"] = int(anchor_rel[0])
        out["mean_relevant_per_anchor"] = round(float(anchor_rel[1] or 0) / anchor_rel[0], 4) if anchor_rel[0] else 0.0
    return out
