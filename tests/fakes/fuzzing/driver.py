"""The fuzz targets: every reader, ingest's CLI, the edge loader, BEIR / pools loaders and config loading.

Each `check_*` function feeds one input to one target and returns None when
the target behaved (accepted or rejected everything it read, with the counts
adding up, or refused the input with one of its documented errors), else a
short description of the crash. `tests/fuzz` drives them with hypothesis;
`benchmarks/fuzz.py` runs them longer and reports inputs tried, crashes and
peak memory.
"""

from __future__ import annotations

import gzip
import json
import random
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from fakes.fuzzing import hostile

# ---------------------------------------------------------------- seeds and mutations

JATS = ('<?xml version="1.0"?><!DOCTYPE article SYSTEM "JATS-archivearticle1.dtd"><article><front><article-meta>'
        '<article-id pub-id-type="doi">10.1/x</article-id><title-group><article-title>T</article-title>'
        '</title-group><abstract><p>An abstract.</p></abstract></article-meta></front><body><sec><title>Intro'
        f'</title><p>{hostile.BODY}</p></sec></body></article>')
UNARXIVE = {"paper_id": "2101.00001", "metadata": {"id": "2101.00001", "title": "T", "categories": "cs.CL"},
            "abstract": {"text": "Abstract."}, "discipline": "Computer Science",
            "body_text": [{"text": hostile.BODY, "section": "Introduction", "sec_number": "1"}],
            "bib_entries": {"b0": {"bib_entry_raw": "A ref", "ids": {"doi": "10.1/y"}}}}
SCIENCE_PARSE = {"name": "x.pdf", "metadata": {"title": "T", "abstractText": "Abstract.", "year": 2017,
                                               "sections": [{"heading": "1 Introduction", "text": hostile.BODY}],
                                               "references": [{"title": "R", "author": ["A"], "year": 2010}]}}

# (file name, bytes) of one valid input per format: the starting points of the mutations.
SEEDS: dict[str, tuple[str, bytes]] = {
    "jsonl": ("own.jsonl", (json.dumps(hostile.own_record("a")) + "\n" + json.dumps(hostile.own_record("b"))
                            + "\n").encode()),
    "s2orc": ("s2.jsonl", (json.dumps(hostile.s2orc_record("s1")) + "\n").encode()),
    "unarxive": ("ua.jsonl", (json.dumps(UNARXIVE) + "\n").encode()),
    "science-parse": ("x.pdf.json", json.dumps(SCIENCE_PARSE).encode()),
    "tei": ("x.tei.xml", hostile.tei(f"<p>{hostile.BODY}</p>").encode()),
    "jats": ("x.nxml", JATS.encode()),
}

HOSTILE_VALUES: list[Any] = [None, True, False, 0, -1, 2**63, 1e308, -1e308, 1.5, "", " ", "\x00", "\ufeff",
                             "a b", "\u202e", "x" * 5000, [], {}, [None], {"id": 1}, [[[[[]]]]], {"": {"": {}}},
                             ["x"] * 50]
SNIPPETS: list[bytes] = [b"\x00", b"\xff\xfe", b"\xc3(", b'"', b"\\", b"{", b"[", b"]" * 50, b"<", b"&lt;", b"]]>",
                         b"<!ENTITY x SYSTEM 'file:///etc/passwd'>", b"&x;", b"\n", b"\r\n", b"\t", b"1e400",
                         b"NaN", b"-Infinity", b"[" * 2000, b"<hi>" * 1500, b'<?xml version="1.0"?>']


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    """One to four random edits: flip, delete, duplicate, truncate, or insert a hostile snippet."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        pos = rng.randrange(len(out) + 1)
        if op == 0 and out:
            out[min(pos, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif op == 1:
            del out[pos: pos + rng.randint(1, 64)]
        elif op == 2:
            chunk = out[pos: pos + rng.randint(1, 256)]
            out[pos:pos] = chunk * rng.randint(1, 8)
        elif op == 3:
            del out[pos:]
        else:
            out[pos:pos] = rng.choice(SNIPPETS)
    return bytes(out)


def mutate_json(value: Any, rng: random.Random, depth: int = 0) -> Any:
    """Replace, drop or add values anywhere in a JSON tree (wrong types, hostile strings, deep nesting)."""
    if isinstance(value, dict) and value and depth < 6:
        key = rng.choice(list(value))
        value = dict(value)
        choice = rng.random()
        if choice < 0.5:
            value[key] = mutate_json(value[key], rng, depth + 1)
        elif choice < 0.7:
            del value[key]
        else:
            value[rng.choice([key + "_x", "extra", "__proto__"])] = rng.choice(HOSTILE_VALUES)
        return value
    if isinstance(value, list) and value and depth < 6:
        value = list(value)
        i = rng.randrange(len(value))
        value[i] = mutate_json(value[i], rng, depth + 1)
        return value
    return rng.choice(HOSTILE_VALUES)


def generate_input(seed: int) -> tuple[str, str, bytes]:
    """(format name, file name, content) for one seeded random input: structural or byte-level mutation."""
    rng = random.Random(seed)
    fmt = rng.choice(sorted(SEEDS))
    name, data = SEEDS[fmt]
    if name.endswith((".jsonl", ".json")) and rng.random() < 0.6:
        lines = [json.loads(line) for line in data.splitlines() if line.strip()]
        lines = [mutate_json(obj, rng) if rng.random() < 0.8 else obj for obj in lines]
        data = b"\n".join(json.dumps(obj).encode() for obj in lines) + b"\n"
    else:
        data = mutate_bytes(data, rng)
    if rng.random() < 0.15:
        data, name = gzip.compress(data, mtime=0), name + ".gz"
    return fmt, name, data


def hostile_files() -> list[tuple[str, bytes]]:
    """Fixed hostile inputs every reader must survive (generated here; nothing copied from real data)."""
    deep = hostile.deep_json(1200).encode()
    return [
        ("deep.jsonl", deep + b"\n"),
        ("deep.json", deep),
        ("deepobj.jsonl", b'{"a":' * 1500 + b"1" + b"}" * 1500 + b"\n"),
        ("nested.tei.xml", hostile.tei("<p>" + "<hi>" * 1000 + "x" + "</hi>" * 1000 + "</p>").encode()),
        ("empty.jsonl", b""),
        ("blank.jsonl", b"\n\n  \n"),
        ("nul.jsonl", b"\x00" * 100),
        ("bom.jsonl", b"\xef\xbb\xbf" + SEEDS["jsonl"][1]),
        ("utf16.jsonl", SEEDS["jsonl"][1].decode().encode("utf-16")),
        ("truncated.jsonl.gz", gzip.compress(SEEDS["jsonl"][1] * 20, mtime=0)[:-30]),
        ("notgzip.jsonl.gz", b"\x1f\x8b" + b"garbage" * 10),
        ("ids.jsonl", b"\n".join(json.dumps(hostile.own_record(i)).encode() for i in ("\x00", " ", "a b", "x" * 600))),
        ("types.jsonl", b"\n".join(json.dumps(hostile.s2orc_record(v)).encode() for v in ({"id": 1}, True, [1], 2.5))),
        ("xxe.tei.xml", b'<?xml version="1.0"?><!DOCTYPE TEI [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
         + hostile.tei("<p>&x;</p>").encode()),
        ("billion.tei.xml", b'<?xml version="1.0"?><!DOCTYPE TEI [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;'
         b'&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;">]>' + hostile.tei("<p>&c;</p>").encode()),
        ("array.json", json.dumps([hostile.s2orc_record("a"), 5, "x", None]).encode()),
        ("scalar.json", b"42"),
        ("huge_number.jsonl", b'{"id": 1' + b"0" * 5000 + b', "title": "t", "sections": []}\n'),
    ]


# ---------------------------------------------------------------- targets


def _crash(err: BaseException) -> str:
    frame = traceback.extract_tb(err.__traceback__)[-1] if err.__traceback__ else None
    where = f" at {Path(frame.filename).name}:{frame.lineno}" if frame else ""
    return f"{type(err).__name__}: {str(err)[:200]}{where}"


def check_reader(path: Path, fmt: str = "auto") -> str | None:
    """Every record a reader yields is an Accepted or a Rejection; it never raises."""
    from sciembed.papers.readers import Accepted, Rejection, read_papers

    try:
        for record in read_papers(path, fmt, name=path.name):
            if not isinstance(record, Accepted | Rejection):
                return f"reader yielded {type(record).__name__}"
            if isinstance(record, Accepted) and (not record.paper.id or not record.paper.title):
                return f"accepted a paper without id or title: {record.paper.id!r}"
    except Exception as err:  # any exception is the finding
        return _crash(err)
    return None


def check_ingest_cli(paths: list[Path], out: Path) -> str | None:
    """`sciembed corpus ingest`: exit 0 or 2, never a traceback, and read = accepted + rejected in the manifest."""
    from typer.testing import CliRunner

    from sciembed.cli.main import app

    result = CliRunner().invoke(app, ["corpus", "ingest", *map(str, paths), "--out", str(out), "--no-progress",
                                      "--overwrite"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        return _crash(result.exception)
    if result.exit_code not in (0, 2):
        return f"exit code {result.exit_code}: {result.output[-300:]}"
    if result.exit_code == 0 or (out / "manifest.json").exists():
        counts = json.loads((out / "manifest.json").read_text())["counts"]
        if counts["read"] != counts["accepted"] + counts["rejected"]:
            return f"counts do not add up: {counts}"
    return None


def check_edges(path: Path, papers_parquet: Path, workdir: Path) -> str | None:
    """The edge loader: every line accepted or rejected (or one EdgeFileError for the whole file)."""
    from sciembed.corpus.edges import EdgeFileError, read_edge_files
    from sciembed.corpus.engine import connect, run
    from sciembed.corpus.papers_table import load_papers

    try:
        with connect(1, "256MB", workdir / "duck") as con:
            load_papers(con, papers_parquet)
            run(con, "CREATE TEMP TABLE raw_edges (src INTEGER, citing BIGINT, cited BIGINT)")
            (stat,) = read_edge_files(con, [path])
    except EdgeFileError:
        return None
    except Exception as err:
        return _crash(err)
    data_lines = sum(1 for line in _lines(path)[1 if stat.format != "jsonl" else 0:] if line.strip())
    if stat.lines != stat.accepted + sum(stat.rejected.values()):
        return f"edge counts do not add up: {stat.to_dict()}"
    if stat.lines != data_lines:
        return f"{data_lines} non-blank data lines but {stat.lines} counted"
    return None


def _lines(path: Path) -> list[bytes]:
    raw = path.read_bytes()
    if path.name.endswith(".gz"):
        raw = gzip.decompress(raw)
    return raw.split(b"\n")


def check_beir(folder: Path) -> str | None:
    from sciembed.evaluation import BenchmarkError, load_beir

    try:
        bench = load_beir(folder)
    except BenchmarkError:
        return None
    except Exception as err:
        return _crash(err)
    bad = [q for q in bench.queries if not bench.queries[q] or any(c.isspace() for c in q)]
    return f"unusable query ids kept: {bad[:3]}" if bad else None


def check_pools(path: Path) -> str | None:
    from sciembed.evaluation import BenchmarkError, load_pools

    try:
        load_pools(path)
    except BenchmarkError:
        return None
    except Exception as err:
        return _crash(err)
    return None


def check_config(path: Path) -> str | None:
    """Training and funnel configs: load, or one ConfigError; no float that is not finite gets through."""
    import math

    from sciembed.corpus.config import ConfigError as FunnelConfigError
    from sciembed.corpus.config import FunnelConfig
    from sciembed.training import WindowConfig, load_config
    from sciembed.training.config import ConfigError

    for load in (lambda: load_config(WindowConfig, path, {}), lambda: FunnelConfig.from_yaml(path)):
        try:
            config = load()
        except (ConfigError, FunnelConfigError):
            continue
        except Exception as err:
            return _crash(err)
        floats = _floats(config.model_dump())
        if any(not math.isfinite(f) for f in floats):
            return f"non-finite value accepted in {type(config).__name__}"
    return None


def _floats(value: Any) -> list[float]:
    if isinstance(value, float):
        return [value]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _floats(v)]
    if isinstance(value, list | tuple):
        return [f for v in value for f in _floats(v)]
    return []


# ---------------------------------------------------------------- generated BEIR / pools / edges / configs


def beir_folder(root: Path, rng: random.Random) -> Path:
    corpus = [{"_id": f"d{i}", "title": f"T{i}", "text": f"text {i}"} for i in range(5)]
    queries = [{"_id": f"q{i}", "text": f"query {i}", "metadata": {"domain": "bio"}} for i in range(3)]
    qrels = [f"q{i}\td{i}\t1" for i in range(3)]
    corpus_b = _jsonl([mutate_json(r, rng) if rng.random() < 0.4 else r for r in corpus])
    queries_b = _jsonl([mutate_json(r, rng) if rng.random() < 0.4 else r for r in queries])
    qrels_b = ("\n".join(qrels) + "\n").encode()
    which = rng.randrange(3)
    if which == 0:
        corpus_b = mutate_bytes(corpus_b, rng)
    elif which == 1:
        qrels_b = mutate_bytes(qrels_b, rng) + rng.choice([b"q0\td0\tinf\n", b"q1\td1\t1e400\n", b"q2\td2\t1e30\n"])
    (root / "qrels").mkdir(parents=True, exist_ok=True)
    (root / "corpus.jsonl").write_bytes(corpus_b)
    (root / "queries.jsonl").write_bytes(queries_b)
    (root / "qrels" / "test.tsv").write_bytes(qrels_b)
    return root


def pools_file(path: Path, rng: random.Random) -> Path:
    pools = [{"query_id": f"q{i}", "query": {"title": "T", "abstract": "A"}, "domain": "cs",
              "candidates": [{"id": f"d{j}", "text": f"t{j}", "relevance": int(j == i)} for j in range(4)]}
             for i in range(3)]
    data = _jsonl([mutate_json(p, rng) if rng.random() < 0.6 else p for p in pools])
    path.write_bytes(mutate_bytes(data, rng) if rng.random() < 0.3 else data)
    return path


def edge_file(path_dir: Path, ids: list[str], rng: random.Random) -> Path:
    kind = rng.choice(["csv", "tsv", "jsonl"])
    pairs = [(rng.choice(ids), rng.choice(ids)) for _ in range(20)]
    if kind == "jsonl":
        data = _jsonl([mutate_json({"citing": a, "cited": b}, rng) if rng.random() < 0.3 else {"citing": a, "cited": b}
                       for a, b in pairs])
    else:
        sep = "," if kind == "csv" else "\t"
        data = ("\n".join([f"citing_id{sep}cited_id", *(f"{a}{sep}{b}" for a, b in pairs)]) + "\n").encode()
    path = path_dir / f"edges.{kind}"
    path.write_bytes(mutate_bytes(data, rng))
    return path


def config_file(path: Path, rng: random.Random) -> Path:
    values = [".inf", "-.inf", ".nan", "1e400", "0", "-1", "true", "null", "[]", "{}", "'x'", "1e-400", "2"]
    keys = ["training.learning_rate", "training.scale", "training.weight_decay", "training.warmup_ratio",
            "training.max_grad_norm", "training.batch_size", "seed", "test_size", "val_size", "max_degree"]
    lines = []
    for key in rng.sample(keys, rng.randint(1, 4)):
        parts = key.split(".")
        value = rng.choice(values)
        lines.append(f"{parts[0]}:\n  {parts[1]}: {value}" if len(parts) == 2 else f"{key}: {value}")
    data = "\n".join(lines).encode()
    path.write_bytes(mutate_bytes(data, rng) if rng.random() < 0.2 else data)
    return path


def _jsonl(objs: list[Any]) -> bytes:
    return b"".join(json.dumps(o).encode() + b"\n" for o in objs)


Check = Callable[[], str | None]
