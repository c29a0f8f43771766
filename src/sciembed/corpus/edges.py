"""Citation edges from edge files (JSONL or CSV/TSV: citing id, cited id), e.g. a Semantic Scholar dump.

Column / key names (first match wins): citing = citing_id | citing | citingcorpusid | citing_paper_id | source,
cited = cited_id | cited | citedcorpusid | cited_paper_id | target. `citingcorpusid` / `citedcorpusid` (the S2
dump's names) hold S2 corpus ids and must be integers. An id names a corpus paper by its `id`, failing that by
its S2 external id.

Every line is accepted or rejected (malformed_line with file:line, missing_id / empty_id, non_numeric_id,
invalid_id); blank lines are only counted. Unknown endpoints stay as NULL, for the funnel's "dangling_endpoint".
DuckDB parses the CSV; JSONL lines are cut by numpy (to know their line numbers) and parsed by DuckDB in batches.
"""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import numpy as np
import pyarrow as pa

from sciembed.corpus import csvlines
from sciembed.corpus.engine import run, scalar, sql_str
from sciembed.errors import SciembedInputError

CITING_KEYS = ("citing_id", "citing", "citingcorpusid", "citing_paper_id", "source")
CITED_KEYS = ("cited_id", "cited", "citedcorpusid", "cited_paper_id", "target")
NUMERIC_KEYS = frozenset({"citingcorpusid", "citedcorpusid"})
EXAMPLES = 5
_FORMATS = ((".csv", "csv"), (".tsv", "tsv"), (".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "jsonl"))
_CHUNK_BYTES = 32 << 20


class EdgeFileError(SciembedInputError, ValueError):
    """An edge file cannot be read at all (unknown format, no id columns) or is malformed in strict mode."""


@dataclass
class EdgeFileStats:
    path: str
    format: str
    columns: tuple[str, str] = ("", "")
    lines: int = 0  # records read = accepted + sum(rejected)
    accepted: int = 0
    rejected: dict[str, int] = field(default_factory=dict)
    blank_lines: int = 0
    examples: list[str] = field(default_factory=list)  # "file:line: why" for the first malformed lines

    def to_dict(self) -> dict:
        return {"path": self.path, "format": self.format, "columns": list(self.columns), "lines": self.lines,
                "accepted": self.accepted, "rejected": self.rejected, "blank_lines": self.blank_lines,
                "malformed_examples": self.examples}


def edge_format(path: Path) -> str:
    name = path.name.lower().removesuffix(".gz")
    found = next((fmt for suffix, fmt in _FORMATS if name.endswith(suffix)), None)
    if found is None:
        raise EdgeFileError(f"{path}: unknown edge file format (expected .csv, .tsv, .jsonl, .ndjson, optionally .gz)")
    return found


def _pick(names: list[str], wanted: tuple[str, ...], where: str) -> str:
    lowered = [n.strip().lower() for n in names]
    found = next((key for key in wanted if key in lowered), None)
    if found is not None:
        return found
    raise EdgeFileError(f"{where}: no column naming the {'citing' if wanted is CITING_KEYS else 'cited'} paper "
                        f"(expected one of {', '.join(wanted)}; found {', '.join(names) or 'nothing'})")


def _open_binary(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


# Reason an id value is unusable, or NULL. `t` is the JSON type ('VARCHAR' for CSV cells, NULL if absent).
# Blank test: the regexp only runs on values that start with whitespace or a non-ASCII character.
_ID_PROBLEM = r"""CASE
    WHEN t IS NULL THEN 'missing_id'
    WHEN t = 'NULL' OR v IS NULL OR v = ''
         OR ((ascii(v) <= 32 OR ascii(v) >= 128) AND NOT regexp_matches(v, '[^\s\pZ]')) THEN 'empty_id'
    WHEN numeric AND NOT (t IN ('UBIGINT', 'BIGINT') OR regexp_full_match(v, '\s*[0-9]+\s*')) THEN 'non_numeric_id'
    WHEN t NOT IN ('VARCHAR', 'UBIGINT', 'BIGINT') THEN 'invalid_id' END"""


def read_edge_files(con: duckdb.DuckDBPyConnection, paths: list[Path], strict: bool = False) -> list[EdgeFileStats]:
    """Append every accepted edge to `raw_edges` (src = 1-based file index); needs table `papers`."""
    if not paths:
        return []
    run(con, f"CREATE OR REPLACE MACRO id_problem(v, t, numeric) AS {_ID_PROBLEM}")
    # Ids are trimmed of spaces; the test avoids copying the (usual) ids that have none.
    run(con, "CREATE OR REPLACE MACRO id_value(v) AS CASE WHEN starts_with(v, ' ') OR ends_with(v, ' ') "
             "THEN trim(v) ELSE v END")
    has_s2 = int(scalar(con, "SELECT count(*) FROM papers WHERE nullif(trim(external_ids.s2), '') IS NOT NULL"))
    if has_s2:
        run(con, """CREATE OR REPLACE TEMP TABLE s2_index AS
                    SELECT lower(trim(external_ids.s2)) AS value, min(pk) AS pk, count(*) AS n
                    FROM papers WHERE nullif(trim(external_ids.s2), '') IS NOT NULL GROUP BY 1""")
    stats = []
    for index, path in enumerate(paths, start=1):
        path = Path(path)
        if not path.is_file():
            raise EdgeFileError(f"{path}: edge file not found")
        fmt = edge_format(path)
        stat = EdgeFileStats(path=str(path), format=fmt)
        if fmt == "jsonl":
            _load_jsonl(con, path, stat)
        else:
            _load_csv(con, path, stat, delim="\t" if fmt == "tsv" else ",")
        if strict and stat.examples:
            raise EdgeFileError(f"{stat.examples[0]} (and {stat.rejected['malformed_line'] - 1} more malformed lines)"
                                if stat.rejected["malformed_line"] > 1 else stat.examples[0])
        _classify_and_append(con, index, stat, has_s2)
        stats.append(stat)
    return stats


def _load_csv(con: duckdb.DuckDBPyConnection, path: Path, stat: EdgeFileStats, delim: str) -> None:
    """Table `edge_lines(line_no, citing, citing_t, cited, cited_t, numeric_a, numeric_b)` from a CSV file."""
    with _open_binary(path) as fh:
        first = fh.readline().decode("utf-8", errors="replace")
    header = next(csv.reader(io.StringIO(first), delimiter=delim), [])
    citing = _pick(header, CITING_KEYS, f"{path}:1 (header)")
    cited = _pick(header, CITED_KEYS, f"{path}:1 (header)")
    lowered = [h.strip().lower() for h in header]
    stat.columns = (citing, cited)
    columns = "{" + ", ".join(f"'c{i}': 'VARCHAR'" for i in range(len(header))) + "}"
    run(con, "DROP TABLE IF EXISTS edge_rejects")
    run(con, "DROP TABLE IF EXISTS edge_reject_scans")
    try:
        run(con, f"""
            CREATE OR REPLACE TEMP TABLE edge_lines AS
            SELECT CAST(NULL AS BIGINT) AS line_no,
                   c{lowered.index(citing)} AS citing, 'VARCHAR' AS citing_t,
                   c{lowered.index(cited)} AS cited, 'VARCHAR' AS cited_t
            FROM read_csv({sql_str(path)}, header = true, auto_detect = false, columns = {columns},
                          delim = {sql_str(delim)}, quote = '"', escape = '"', store_rejects = true,
                          rejects_table = 'edge_rejects', rejects_scan = 'edge_reject_scans')
            """)
        rows = con.execute("SELECT line, min(error_type || ': ' || error_message) FROM edge_rejects GROUP BY line "
                           "ORDER BY line").fetchall()
        malformed = [(int(line), msg) for line, msg in rows]
        duckdb_failed = False
    except duckdb.Error:  # DuckDB's parser gave up on the file: read it line by line below
        malformed, duckdb_failed = [], True
    if duckdb_failed or csvlines.needs_line_by_line(con, path, _open_binary, len(malformed)):
        with _open_binary(path) as fh:
            malformed = csvlines.load_line_by_line(con, fh, delim, lowered.index(citing), lowered.index(cited))
    _note_malformed(stat, path, malformed)


def _line_batches(path: Path) -> Iterator[tuple[int, pa.Array]]:
    """(number of the first line, its lines with their newline) per chunk of whole lines: an Arrow array on the
    chunk's own bytes, newline offsets found by numpy (no Python object per line); binary when not UTF-8."""
    first = 1
    rest = b""
    with _open_binary(path) as fh:
        while True:
            chunk = fh.read(_CHUNK_BYTES)
            data = rest + chunk
            if chunk:
                cut = data.rfind(b"\n") + 1  # whole lines only; the tail waits for the next chunk
                data, rest = data[:cut], data[cut:]
            if data:
                ends = np.flatnonzero(np.frombuffer(data, np.uint8) == 10) + 1
                if not ends.size or ends[-1] != len(data):
                    ends = np.append(ends, len(data))  # a last line without a newline
                offsets = pa.py_buffer(np.concatenate(([0], ends)).astype(np.int64))
                try:
                    data.decode("utf-8")
                    kind = pa.large_string()
                except UnicodeDecodeError:
                    kind = pa.large_binary()
                lines = pa.Array.from_buffers(kind, len(ends), [None, offsets, pa.py_buffer(data)])
                yield first, lines.cast(pa.string() if kind == pa.large_string() else pa.binary())
                first += len(ends)
            if not chunk:
                return


def _load_jsonl(con: duckdb.DuckDBPyConnection, path: Path, stat: EdgeFileStats) -> None:
    """Table `edge_lines` from a JSONL file; line numbers come from cutting the bytes here."""
    run(con, """CREATE OR REPLACE TEMP TABLE jsonl_lines
           (line_no BIGINT, text VARCHAR, problem VARCHAR)""")
    for first_line, lines in _line_batches(path):
        text = "rtrim(raw, chr(13) || chr(10))"
        if lines.type == pa.binary():  # the chunk is not valid UTF-8: decode line by line, NULL where invalid
            text = "rtrim(try(decode(raw)), chr(13) || chr(10))"
        batch = pa.table({"line_no": pa.array(np.arange(first_line, first_line + len(lines))), "raw": lines})
        con.register("jsonl_batch", batch)
        run(con, f"""INSERT INTO jsonl_lines
                SELECT line_no, text,
                       CASE WHEN text IS NULL THEN 'invalid UTF-8'
                            WHEN trim(text) = '' THEN NULL
                            WHEN kind IS NULL THEN 'invalid JSON'
                            WHEN kind <> 'OBJECT' THEN 'not a JSON object' END
                FROM (SELECT line_no, text, try(json_type(text)) AS kind  -- one parse: NULL when invalid
                      FROM (SELECT line_no, {text} AS text FROM jsonl_batch))""")
        con.unregister("jsonl_batch")
    stat.blank_lines = int(scalar(con, "SELECT count(*) FROM jsonl_lines WHERE problem IS NULL AND trim(text) = ''"))
    rows = con.execute("SELECT line_no, problem FROM jsonl_lines WHERE problem IS NOT NULL ORDER BY line_no").fetchall()
    _note_malformed(stat, path, [(int(n), p) for n, p in rows])
    keys = con.execute("SELECT line_no, json_keys(text) FROM jsonl_lines WHERE problem IS NULL AND trim(text) <> '' "
                       "ORDER BY line_no LIMIT 1").fetchall()
    if not keys:
        run(con, """CREATE OR REPLACE TEMP TABLE edge_lines AS SELECT CAST(NULL AS BIGINT) AS line_no,
                    '' AS citing, '' AS citing_t, '' AS cited, '' AS cited_t LIMIT 0""")
        return
    first_line, names = keys[0]
    where = f"{path}:{first_line} (first record)"
    citing, cited = _pick(list(names), CITING_KEYS, where), _pick(list(names), CITED_KEYS, where)
    stat.columns = (citing, cited)
    run(con, f"""
        CREATE OR REPLACE TEMP TABLE edge_lines AS
        SELECT line_no, j[1] ->> '$' AS citing, json_type(j[1]) AS citing_t,
               j[2] ->> '$' AS cited, json_type(j[2]) AS cited_t
        FROM (SELECT line_no, json_extract(text, ['$."{citing}"', '$."{cited}"']) AS j  -- one parse per line
              FROM jsonl_lines WHERE problem IS NULL AND trim(text) <> '')
        """)
    run(con, "DROP TABLE jsonl_lines")


def _note_malformed(stat: EdgeFileStats, path: Path, rows: list[tuple[int, str]]) -> None:
    if rows:
        stat.rejected["malformed_line"] = len(rows)
        stat.examples = [f"{path}:{line}: {why}" for line, why in rows[:EXAMPLES]]


def _classify_and_append(con: duckdb.DuckDBPyConnection, index: int, stat: EdgeFileStats, has_s2: bool) -> None:
    """Count unusable ids by reason, resolve the rest to paper keys (NULL = unknown paper), append to `raw_edges`."""
    num_a, num_b = (str(c in NUMERIC_KEYS).upper() for c in stat.columns)
    problem = f"coalesce(id_problem(citing, citing_t, {num_a}), id_problem(cited, cited_t, {num_b}))"
    outcomes = con.execute(f"SELECT {problem} AS reason, count(*) FROM edge_lines GROUP BY reason").fetchall()
    stat.rejected.update({str(r): int(n) for r, n in sorted(outcomes, key=lambda o: str(o[0])) if r is not None})
    stat.accepted = sum(int(n) for r, n in outcomes if r is None)
    stat.lines = stat.accepted + sum(stat.rejected.values())
    if has_s2:
        lookup = """LEFT JOIN papers pa ON pa.id = e.citing LEFT JOIN papers pb ON pb.id = e.cited
                    LEFT JOIN s2_index sa ON sa.value = lower(e.citing) AND sa.n = 1
                    LEFT JOIN s2_index sb ON sb.value = lower(e.cited) AND sb.n = 1"""
        keys = "coalesce(pa.pk, sa.pk), coalesce(pb.pk, sb.pk)"
    else:
        lookup = "LEFT JOIN papers pa ON pa.id = e.citing LEFT JOIN papers pb ON pb.id = e.cited"
        keys = "pa.pk, pb.pk"
    accepted = f"SELECT id_value(citing) AS citing, id_value(cited) AS cited FROM edge_lines WHERE {problem} IS NULL"
    run(con, f"INSERT INTO raw_edges SELECT {index}, {keys} FROM ({accepted}) e {lookup}")
    run(con, "DROP TABLE edge_lines")
