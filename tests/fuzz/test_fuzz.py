"""Issue 15 fuzz suite (bounded for `make test`; `benchmarks/fuzz.py` runs the same targets longer).

For every input: no traceback; records accepted + rejected = read; a CLI exits
0 or 2; loaders refuse with their documented error or count what they skip.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fakes.fuzzing import driver, hostile
from sciembed.papers.ingest import ingest

FAST = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
KEYS = ["id", "paper_id", "corpusid", "title", "abstract", "sections", "references", "metadata", "body_text",
        "bib_entries", "year", "venue", "fields_of_study", "external_ids", "flags", "content", "text",
        "abstractText", "discipline", "unknown"]


@pytest.fixture(scope="module")
def work():
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        src = hostile.write_lines(root / "p.jsonl", [hostile.own_record(f"p{i}") for i in range(10)])
        ingest([src], root / "corpus", progress=False)
        yield root


def _file(root: Path, name: str, data: bytes) -> Path:
    path = root / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("name,data", driver.hostile_files(), ids=[n for n, _ in driver.hostile_files()])
def test_hostile_files_in_every_reader(tmp_path, name, data):
    path = _file(tmp_path, name, data)
    for fmt in ("auto", *driver.SEEDS):
        assert driver.check_reader(path, fmt) is None, (name, fmt)


@FAST
@given(seed=SEEDS)
def test_mutated_files_in_every_reader(work, seed):
    fmt, name, data = driver.generate_input(seed)
    path = _file(work, name, data)
    assert driver.check_reader(path, "auto") is None
    assert driver.check_reader(path, fmt) is None


@FAST
@given(records=st.lists(st.dictionaries(st.sampled_from(KEYS), JSON, min_size=1, max_size=8), min_size=1, max_size=3),
       fmt=st.sampled_from(["jsonl", "s2orc", "unarxive", "science-parse"]))
def test_arbitrary_json_records_in_the_json_readers(work, records, fmt):
    path = _file(work, "h.jsonl", b"".join(json.dumps(r).encode() + b"\n" for r in records))
    assert driver.check_reader(path, fmt) is None


@settings(FAST, max_examples=12)
@given(seed=SEEDS)
def test_ingest_cli_exits_0_or_2_and_counts_add_up(work, seed):
    _, name, data = driver.generate_input(seed)
    assert driver.check_ingest_cli([_file(work, name, data)], work / "out") is None


@settings(FAST, max_examples=25)
@given(seed=SEEDS)
def test_edge_loader(work, seed):
    rng = random.Random(seed)
    folder = Path(tempfile.mkdtemp(dir=work))
    ids = [f"p{i}" for i in range(10)] + ["unknown", ""]
    assert driver.check_edges(driver.edge_file(folder, ids, rng), work / "corpus" / "papers.parquet", folder) is None


@settings(FAST, max_examples=40)
@given(seed=SEEDS)
def test_beir_and_pools_loaders(work, seed):
    rng = random.Random(seed)
    folder = Path(tempfile.mkdtemp(dir=work))
    assert driver.check_beir(driver.beir_folder(folder / "beir", rng)) is None
    assert driver.check_pools(driver.pools_file(folder / "pools.jsonl", rng)) is None


@settings(FAST, max_examples=40)
@given(seed=SEEDS)
def test_config_loading(work, seed):
    assert driver.check_config(driver.config_file(work / "c.yaml", random.Random(seed))) is None


PEAK_SCRIPT = """
import json, sys
from pathlib import Path
from sciembed.papers.ingest import ingest
from sciembed.ioutil.memory import peak_mb
root = Path(sys.argv[1])
files = [root / n for n in ("bomb.jsonl.gz", "bomb.tei.xml.gz", "big.jsonl")]
result = ingest(files, root / ("out-" + sys.argv[2]), fmt=sys.argv[2], progress=False)
print(json.dumps({"accepted": result.accepted, "reasons": dict(result.reasons),
                  "peak_mb": peak_mb()}))
"""


def test_bombs_and_huge_records_stay_within_a_memory_bound(tmp_path):
    """64 MB gzip bombs (1,000x) and a 50 MB record: rejected, and the ingest process peaks under 300 MB."""
    hostile.zero_bomb(tmp_path / "bomb.jsonl.gz", 64 << 20)
    hostile.zero_bomb(tmp_path / "bomb.tei.xml.gz", 64 << 20)
    hostile.write_lines(tmp_path / "big.jsonl", [hostile.own_record("big", abstract="x" * (50 << 20)),
                                                 hostile.own_record("ok")])
    outcomes = {}
    for fmt in ("auto", "jsonl"):
        done = subprocess.run([sys.executable, "-c", PEAK_SCRIPT, str(tmp_path), fmt], capture_output=True,
                              text=True, check=True, timeout=300)
        outcomes[fmt] = json.loads(done.stdout)
    assert outcomes["auto"]["reasons"] == {"unknown_format": 1, "record_too_large": 2}  # the TEI bomb: > 20 MB
    assert outcomes["jsonl"]["reasons"] == {"decompression_limit": 1, "record_too_large": 2}  # TEI read as JSONL
    assert outcomes["auto"]["accepted"] == outcomes["jsonl"]["accepted"] == 1
    assert max(o["peak_mb"] for o in outcomes.values()) < 300, outcomes
