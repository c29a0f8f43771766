"""Issue 23, defect 4: `index --out` and `eval -o` never write through symbolic links planted in the output."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app


@pytest.fixture()
def planted(tmp_path):
    """An existing output directory whose usual file names are links to files outside it."""
    victim = tmp_path / "victim"
    victim.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    for name in ("papers.json", "manifest.json", "results.json", "report.md"):
        (victim / name).write_text("precious")
        (out / name).symlink_to(victim / name)
    (out / "index").symlink_to(victim, target_is_directory=True)
    return out, victim


def untouched(victim) -> bool:
    return all(p.read_text() == "precious" for p in victim.iterdir() if p.is_file()) and \
        sorted(p.name for p in victim.iterdir()) == ["manifest.json", "papers.json", "report.md", "results.json"]


def test_index_refuses_links_in_its_output(planted, tmp_path, shared_data):
    out, victim = planted
    runner = CliRunner()
    corpus = tmp_path / "corpus"
    assert runner.invoke(app, ["corpus", "ingest", str(shared_data / "unarxive-sample"), "--out", str(corpus),
                               "--no-progress"]).exit_code == 0
    for model in ("bm25", "minilm"):
        ran = runner.invoke(app, ["index", "build", str(corpus), "--out", str(out), "--model", model])
        assert ran.exit_code == 2 and "symbolic link" in ran.output, ran.output
        assert untouched(victim)


def tiny_beir(root):
    """A five-document BEIR folder (BM25 evaluates it in a second)."""
    import json

    root.mkdir()
    docs = ["graph neural networks", "protein folding", "galaxy spectra", "soil mechanics", "gene expression"]
    (root / "corpus.jsonl").write_text("".join(json.dumps({"_id": f"d{i}", "title": t, "text": t}) + "\n"
                                               for i, t in enumerate(docs)))
    (root / "queries.jsonl").write_text(json.dumps({"_id": "q0", "text": "protein folding"}) + "\n"
                                        + json.dumps({"_id": "q1", "text": "galaxy"}) + "\n")
    (root / "qrels").mkdir()
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq0\td1\t1\nq1\td2\t1\n")
    return root


def test_eval_refuses_links_in_its_output(planted, tmp_path):
    out, victim = planted
    beir = tiny_beir(tmp_path / "beir")
    ran = CliRunner().invoke(app, ["eval", "run", "--kind", "beir", str(beir), "--model", "bm25", "-o", str(out)])
    assert ran.exit_code == 2 and "symbolic link" in ran.output, ran.output
    assert untouched(victim)
