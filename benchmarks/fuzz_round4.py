"""Issue 33's probes, one per defect this branch fixes, run against whichever sciembed is importable.

Run it twice, once over the code before the fixes and once after, then merge:

    PYTHONPATH=OLD/src python benchmarks/fuzz_round4.py --label before --out /tmp/before.json
    PYTHONPATH=src     python benchmarks/fuzz_round4.py --label after  --out /tmp/after.json
    python benchmarks/fuzz_round4.py --merge /tmp/before.json /tmp/after.json \
        --out benchmarks/results/fuzz_round4.json

The "before" tree needs this branch's test servers (`llm/fake_server.py`, `ioutil/fake_http.py`,
`papers/pdf/fake_grobid.py`, `papers/pdf/testing.py`), which only add ways to misbehave. Every outcome
is what the probe saw (status, exit code, seconds, counts); nothing is filled in by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sciembed.ioutil.portable import portable

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the test servers live with the tests

SHARED = Path(os.environ.get("SCIEMBED_SHARED_DATA") or Path(__file__).resolve().parents[2] / "shared" / "data")
PROBES: dict[str, tuple[str, Callable[[Path], Any]]] = {}


def probe(defect: str, what: str):
    def register(fn: Callable[[Path], Any]) -> Callable[[Path], Any]:
        PROBES[defect] = (what, fn)
        return fn
    return register


def _cli(args: list[str]) -> dict[str, Any]:
    from typer.testing import CliRunner

    from sciembed.cli.main import app

    result = CliRunner().invoke(app, args)
    raised = result.exception is not None and not isinstance(result.exception, SystemExit)
    return {"exit_code": result.exit_code, "traceback": raised,
            "last_line": (result.output.strip().splitlines() or [""])[-1][:240]}


@probe("6", "fusion.json with NaN / negative weights, RRF k=-1, duplicate runs, text weights: FusionSpec.load")
def fusion_files(tmp: Path) -> dict[str, Any]:
    from sciembed.search.learned_fusion import FusionSpec, fuse_one

    files = {"nan_weight": '{"runs": ["a", "b"], "method": "wsum", "norm": "zmuv", "params": {"weights": [NaN, 1]}}',
             "negative_weights": '{"runs": ["a", "b"], "method": "wsum", "norm": "min-max", '
                                 '"params": {"weights": [-1, -1]}}',
             "rrf_k_minus_1": '{"runs": ["a", "b"], "method": "rrf", "params": {"k": -1}}',
             "duplicate_runs": '{"runs": ["a", "a"], "method": "rrf", "params": {"k": 60}}',
             "text_weights": '{"runs": ["a", "b"], "method": "wsum", "norm": "zmuv", "params": {"weights": ["x", 1]}}'}
    rankings = {"a": [("p1", 3.0), ("p2", 2.0), ("p3", 1.0)], "b": [("p1", 0.9), ("p2", 0.5), ("p3", 0.1)]}
    out = {}
    for name, text in files.items():
        path = tmp / f"{name}.json"
        path.write_text(text)
        try:
            spec = FusionSpec.load(path)
        except Exception as err:
            out[name] = f"refused ({type(err).__name__}): {str(err)[:160]}"
            continue
        try:
            fused = fuse_one(spec, rankings)
            out[name] = f"accepted; fused ranking {[(d, round(s, 3)) for d, s in fused]}"
        except Exception as err:
            out[name] = f"accepted; fusing raised {type(err).__name__}: {str(err)[:120]}"
    return out


@probe("7", "corpus ingest of a JSONL whose second record's id is 'bad\\ud800'")
def surrogate_id(tmp: Path) -> dict[str, Any]:
    good = {"id": "ok", "title": "A title", "abstract": "An abstract."}
    path = tmp / "s.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "id": "PLACE"}).replace("PLACE", "bad\\ud800")
                    + "\n")
    result = _cli(["corpus", "ingest", str(path), "--out", str(tmp / "out")])
    manifest = tmp / "out" / "manifest.json"
    result["counts"] = json.loads(manifest.read_text())["counts"] if manifest.exists() else None
    return result


@probe("8", "index search without --trust-remote-code on an index built with it, its seal deleted")
def model_code(tmp: Path) -> dict[str, Any]:
    from fakes.models import build_tiny_bert
    from sciembed.models import load_encoder

    st, marker = tmp / "st", tmp / "RAN"
    load_encoder(str(build_tiny_bert(tmp / "model", ["alpha", "beta"], seed=0))).model.save(str(st))
    (st / "planted.py").write_text(f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"
                                   "from sentence_transformers.sentence_transformer.modules import Normalize as P\n")
    modules = json.loads((st / "modules.json").read_text())
    modules.append({"idx": len(modules), "name": f"{len(modules)}_P", "path": "", "type": "planted.P"})
    (st / "modules.json").write_text(json.dumps(modules))
    _cli(["corpus", "ingest", str(SHARED / "unarxive-sample"), "--out", str(tmp / "corpus"), "--no-progress"])
    built = _cli(["index", "build", str(tmp / "corpus"), "--out", str(tmp / "index"), "--model", str(st),
                  "--trust-remote-code"])
    marker.unlink(missing_ok=True)
    for name in [m for m in sys.modules if "planted" in m]:
        del sys.modules[name]
    manifest = json.loads((tmp / "index" / "manifest.json").read_text())
    manifest.pop("self_sha256", None)
    (tmp / "index" / "manifest.json").write_text(json.dumps(manifest))
    searched = _cli(["index", "search", str(tmp / "index"), "--query", "alpha", "--k", "2"])
    return {"build_exit_code": built["exit_code"], "search": searched, "planted_code_ran": marker.exists()}


def _timed(fn: Callable[[], Any]) -> dict[str, Any]:
    started = time.monotonic()
    try:
        fn()
        outcome = "answered"
    except Exception as err:
        outcome = f"{type(err).__name__}: {str(err)[:160]}"
    return {"seconds": round(time.monotonic() - started, 2), "outcome": outcome}


@probe("9", "LLM chat, --llm-timeout 1 s, to a server that drips its headers over 6 s")
def llm_slow_headers(tmp: Path) -> dict[str, Any]:
    from fakes.llm_server import FakeLLMServer
    from sciembed.llm import LLMClient, LLMConfig, LLMRequest, Sampling, load_prompt

    with FakeLLMServer(timeout_delay_s=6.0).running() as server:
        server.fail_next("slow_headers")
        config = LLMConfig(base_url=server.url, model="m", max_retries=0, backoff_s=0.0, timeout_s=1.0)
        with LLMClient(config, progress=False) as client:
            return _timed(lambda: client.chat(load_prompt("semantic_query"), [LLMRequest({"title": "T",
                                                                                          "abstract": "A"})],
                                              Sampling(temperature=0.0, max_tokens=8)))


@probe("5", "/v1/embeddings (timeout 1 s, no retries): headers dripped over 6 s; then an all-zero vector")
def embeddings(tmp: Path) -> dict[str, Any]:
    from fakes.llm_server import FakeLLMServer
    from sciembed.llm import LLMConfig
    from sciembed.models.openai_backend import OpenAIEmbeddingEncoder

    with FakeLLMServer(timeout_delay_s=6.0).running() as server:
        config = LLMConfig(base_url=server.url, model="e", max_retries=0, backoff_s=0.0, timeout_s=1.0)
        encoder = OpenAIEmbeddingEncoder("e", config, dimensions=8, progress=False)
        server.fail_next("slow_headers")
        slow = _timed(lambda: encoder.encode(["a text"], show_progress=False))
        server.fail_next("zeros")
        zeros = _timed(lambda: encoder.encode(["a text", "another"], show_progress=False))
    return {"slow_headers": slow, "all_zero_vector": zeros}


def _grobid_ingest(tmp: Path, name: str, failure: str, **options: Any) -> dict[str, Any]:
    from fakes.grobid import FakeGrobid, pairs_from_dirs
    from sciembed.papers.ingest import ingest
    from sciembed.papers.pdf.grobid import GrobidBackend, GrobidOptions

    formats = SHARED / "formats"
    with FakeGrobid(pairs_from_dirs(formats / "pdf", formats / "grobid-tei"), slow_s=6.0,
                    huge_bytes=21 << 20).running() as grobid:
        grobid.fail_next(failure)
        backend = GrobidBackend(GrobidOptions(grobid.url, backoff_s=0.01, retries=0, **options), tmp / f"{name}-c")
        started = time.monotonic()
        result = ingest([formats / "pdf" / "N18-3011.pdf"], tmp / name, progress=False, pdf=backend)
        seconds = round(time.monotonic() - started, 2)
        cached = list((tmp / f"{name}-c").glob("*.tei.xml"))
        again = ingest([formats / "pdf" / "N18-3011.pdf"], tmp / f"{name}-again", progress=False,
                       pdf=GrobidBackend(GrobidOptions(grobid.url, backoff_s=0.01, retries=0), tmp / f"{name}-c"))
        return {"seconds": seconds, "rejected_by_reason": dict(result.reasons), "tei_files_cached": len(cached),
                "cached_mb": round(sum(p.stat().st_size for p in cached) / 2**20, 1),
                "next_run": {"accepted": again.accepted, "rejected_by_reason": dict(again.reasons),
                             "requests_to_grobid": len(grobid.requests)}}


@probe("3", "GROBID answers a 21 MB TEI (over the reader's 20 MB limit); then the same PDF again")
def grobid_huge(tmp: Path) -> dict[str, Any]:
    return _grobid_ingest(tmp, "huge", "huge")


@probe("4", "GROBID, --pdf-timeout 1 s, drips its headers over 6 s")
def grobid_slow_headers(tmp: Path) -> dict[str, Any]:
    return _grobid_ingest(tmp, "slow", "slow_headers", timeout_s=1.0)


@probe("12", "a keyless write (--allow-open-writes) to http://localhost:8000 with Origin http://localhost:9999")
def origin_port(tmp: Path) -> dict[str, Any]:
    from starlette.testclient import TestClient

    from sciembed.server.guard import Guard
    from sciembed.server.settings import ServerSettings

    async def ok(scope, receive, send):
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"written"})

    client = TestClient(Guard(ok, ServerSettings(allow_open_writes=True)), base_url="http://localhost:8000")
    return {origin: client.post("/papers", headers={"Origin": origin}).status_code
            for origin in ("http://localhost:8000", "http://localhost:9999", "https://localhost:8000")}


def _small_corpus(root: Path, n: int) -> Path:
    from sciembed.papers.io import write_parquet
    from sciembed.papers.model import Paper, Section

    root.mkdir(parents=True)
    write_parquet([Paper(f"p{i}", f"Title {i}", f"Abstract {i}.", (Section("Intro", f"body {i} " * 200),))
                   for i in range(n)], root / "papers.parquet")
    (root / "manifest.json").write_text('{"schema_version": 1, "kind": "ingested"}')
    return root


@probe("11", "paper store: a killed build's partial file; a same-size corruption; a damaged papers.parquet")
def store_damage(tmp: Path) -> dict[str, Any]:
    import pyarrow.parquet as pq

    from sciembed.corpus.paper_store import STORE_FILE, open_store, store_dir

    root = _small_corpus(tmp / "c", 30)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    partial = store_dir(root) / f".{STORE_FILE}.{dead.pid}.partial"
    partial.write_bytes(b"x" * 20_000)
    os.utime(partial, (time.time() - 3600,) * 2)
    target = open_store(root).path
    out: dict[str, Any] = {"stale_partial_left": partial.exists()}
    stat, data = target.stat(), bytearray(target.read_bytes())
    data[len(data) // 2: len(data) // 2 + 4096] = b"\0" * 4096
    target.write_bytes(bytes(data))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    try:
        texts = [p.sections[0].text.split()[1] for p in open_store(root).papers(range(30))]
        out["same_size_corruption"] = "read right" if texts == [str(i) for i in range(30)] else \
            f"{sum(t != str(i) for i, t in enumerate(texts))} of 30 papers read wrong"
    except Exception as err:
        out["same_size_corruption"] = f"{type(err).__name__}: {str(err)[:120]}"
    damaged = _small_corpus(tmp / "d", 3000)
    column = pq.ParquetFile(damaged / "papers.parquet").metadata.row_group(0).column(3)
    with open(damaged / "papers.parquet", "r+b") as f:
        f.seek(column.data_page_offset)
        f.write(b"\xff" * 64)
    for name, args in (("corpus stats", ["corpus", "stats", str(damaged)]),
                       ("index build --model bm25", ["index", "build", str(damaged), "--model", "bm25", "--out",
                                                     str(tmp / "ix")]),
                       ("encode", ["encode", str(damaged), "-o", str(tmp / "vec"), "--no-progress"])):
        out[f"damaged_parquet: {name}"] = _cli(args)
    return out


@probe("1", "PDF upload that parses for ~10 s under a 1.5 s request limit, then a good 2-page PDF")
def abandoned_upload(tmp: Path) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from fakes import pdfs as testing
    from fakes.models import build_tiny_bert
    from sciembed.corpus.layout import CorpusDir
    from sciembed.index.collection import Collection
    from sciembed.index.paper_index import build_paper_index
    from sciembed.models import load_encoder
    from sciembed.papers.ingest import ingest
    from sciembed.server import ServerSettings, create_app

    ingest([SHARED / "unarxive-sample"], tmp / "corpus", progress=False)
    words = sorted({w.lower() for p in CorpusDir(tmp / "corpus").iter_papers() for w in p.title.split()})[:2000]
    encoder = load_encoder(str(build_tiny_bert(tmp / "tiny", words, seed=0)))
    build_paper_index(tmp / "corpus", encoder, "ta", tmp / "index", show_progress=False)
    collection = Collection.open(tmp / "index", encoder)
    try:
        client = TestClient(create_app(collection, ServerSettings(timeout_s=1.5)), base_url="http://localhost")
        started = time.monotonic()
        slow = client.post("/search/file", files={"file": ("s.pdf", testing.dense_pdf(40), "application/pdf")})
        good = client.post("/search/file", files={"file": ("g.pdf", testing.paper_pdf(), "application/pdf")})
        seconds = round(time.monotonic() - started, 2)
        time.sleep(0.5)
        leftover = len(list(Path(tempfile.gettempdir()).glob("sciembed-upload-*")))
        return {"slow_upload_status": slow.status_code, "good_upload_status": good.status_code,
                "seconds_for_both": seconds, "upload_dirs_left_0_5_s_later": leftover}
    finally:
        collection.close()


@probe("10", "HNSW (M=4, ef 16) over 3,000 clustered vectors: 16 queries paged 50 at a time to 300")
def hnsw_paging(tmp: Path) -> dict[str, Any]:
    import numpy as np

    from sciembed.retrieval.ann import AnnParams
    from sciembed.retrieval.multivector import MultiVectorIndex

    rng = np.random.default_rng(0)
    centres = rng.normal(size=(30, 32))
    vectors = (centres[rng.integers(0, 30, 3000)] + 0.6 * rng.normal(size=(3000, 32))).astype(np.float32)
    index = MultiVectorIndex(32, "cosine", "max", AnnParams(kind="hnsw", hnsw_m=4, ef_construction=16, ef_search=16))
    index.add([f"p{i}" for i in range(3000)], vectors)
    runs_with_repeats, repeats = 0, 0
    for _ in range(16):
        query = rng.normal(size=(1, 32)).astype(np.float32)
        shown = [pid for o in range(0, 300, 50) for pid, _, _ in index.search_views(query, o + 51)[o:o + 50]]
        runs_with_repeats += len(shown) != len(set(shown))
        repeats += len(shown) - len(set(shown))
    return {"runs": 16, "runs_with_a_paper_shown_twice": runs_with_repeats, "papers_shown_twice": repeats}


def run_all(label: str, only: list[str] | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for defect, (what, fn) in PROBES.items():
        if only and defect not in only:
            continue
        tmp = Path(tempfile.mkdtemp(prefix=f"fuzz4-{defect}-"))
        started = time.monotonic()
        try:
            result: Any = fn(tmp)
        except Exception:
            result = {"probe_raised": traceback.format_exc().strip().splitlines()[-1][:300]}
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        out[defect] = {"probe": what, label: result, f"{label}_probe_s": round(time.monotonic() - started, 1)}
        print(f"[{label}] defect {defect}: {json.dumps(result)[:300]}", file=sys.stderr, flush=True)
    return out


def merge(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    defects = {d: {"probe": after[d]["probe"], "before": before.get(d, {}).get("before"),
                   "after": after[d]["after"]} for d in after}
    return {"issue": 33, "script": "benchmarks/fuzz_round4.py", "machine": platform.platform(),
            "python": platform.python_version(), "defects": defects}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--label", choices=("before", "after"))
    parser.add_argument("--only", nargs="*")
    parser.add_argument("--merge", nargs=2, type=Path)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    result = merge(*(json.loads(p.read_text()) for p in args.merge)) if args.merge else \
        run_all(args.label, args.only)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(portable(result, in_text=True), indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
