"""SciTLDR real-text BEIR folders: counts add up, ids cannot hide the answer, the loader reads them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.evaluation import load_beir
from sciembed.evaluation.scitldr import SciTldrError, read_scitldr, task_pairs, write_scitldr_beir


def _record(pid: str, sentences: list[str], target: list[str] | None = None, title: str = "A title") -> str:
    return json.dumps({"paper_id": pid, "title": title, "source": sentences, "target": target or ["tl;dr."]})


def test_real_dev_split_counts(shared_data: Path, tmp_path: Path) -> None:
    manifest = write_scitldr_beir(shared_data / "scitldr" / "dev.jsonl", tmp_path)
    assert manifest["read"] == 619 == manifest["accepted"] + sum(manifest["rejected"].values())
    for task, info in manifest["tasks"].items():
        assert info["papers"] + sum(info["skipped"].values()) == manifest["accepted"], task
        bench = load_beir(tmp_path / task)
        assert len(bench.queries) == info["queries"] and len(bench.docs) == info["documents"]
        # the gold document is the query's own paper and is never excluded as "the query itself"
        for qid, rel in bench.qrels.items():
            paper = qid.removeprefix("q:").rsplit(":", 1)[0] if task == "tldr2paper" else qid.removeprefix("q:")
            assert list(rel) == [paper]
            assert qid not in bench.docs
    # every TLDR by default (the author's and the reviewers'), the author's alone under its own name
    assert manifest["tasks"]["tldr2paper"]["queries"] == 1453
    assert manifest["tasks"]["tldr2paper_author"]["queries"] == manifest["tasks"]["tldr2paper"]["papers"] == 619


def test_half_split_and_rejects(tmp_path: Path) -> None:
    src = tmp_path / "x.jsonl"
    src.write_text("\n".join([
        _record("a", ["s1.", "s2.", "s3."]),
        _record("b", ["only one."]),
        _record("a", ["dup."]),
        "{not json",
        _record("c", [], title="t"),
        json.dumps({"paper_id": "d", "title": "", "source": ["x."], "target": []}),
    ]) + "\n", encoding="utf-8")
    read = read_scitldr(src)
    assert read.read == 6 and len(read.papers) == 2
    assert sum(read.rejected.values()) == 4
    assert read.examples["not valid JSON"] == "x.jsonl:4"
    queries, docs, skipped = task_pairs(read.papers, "half2half")
    assert queries == {"a": "s1."} and docs == {"a": "s2. s3."}
    assert skipped == {"abstract with fewer than 2 sentences": 1}


def test_nothing_usable_is_an_error(tmp_path: Path) -> None:
    src = tmp_path / "bad.jsonl"
    src.write_text("[]\n", encoding="utf-8")
    with pytest.raises(SciTldrError, match="no usable SciTLDR record"):
        write_scitldr_beir(src, tmp_path / "out")


def test_cli(shared_data: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["beir", "scitldr", str(shared_data / "scitldr" / "dev.jsonl"),
                                      "--out", str(tmp_path), "--task", "title2abstract"])
    assert result.exit_code == 0, result.output
    assert "read 619 = accepted 619 + rejected 0" in result.output
    assert (tmp_path / "title2abstract" / "qrels" / "test.tsv").is_file()
    assert not (tmp_path / "half2half").exists()
    bad = CliRunner().invoke(app, ["beir", "scitldr", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path)])
    assert bad.exit_code == 2
