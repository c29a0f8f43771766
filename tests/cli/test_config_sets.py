"""What left the flag list is still reachable, validated: `--set` / `-c` on serve, ingest and corpus build, and the
`--index` factory string of `index build`."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.cli.pdf_options import PdfReading, pdf_reading
from sciembed.cli.serve_config import ServeConfigError, ServeTuning, serve_tuning

runner = CliRunner()


def test_serve_tuning_from_a_file_then_set(tmp_path):
    config = tmp_path / "serve.yaml"
    config.write_text("max_k: 50\nencode_threads: 2\n")
    tuning = serve_tuning(config, ["max_k=20", "auto_compact=0.3"])
    assert tuning == ServeTuning(max_k=20, encode_threads=2, auto_compact=0.3)
    with pytest.raises(ServeConfigError, match="max_queue"):
        serve_tuning(None, ["max_queue=0"])
    with pytest.raises(ServeConfigError, match="hnsw_m"):
        serve_tuning(None, ["hnsw_m=3"])
    assert ServeTuning().write_encoder == "separate" and serve_tuning(None, ["write_encoder=shared"]).write_encoder \
        == "shared"
    with pytest.raises(ServeConfigError, match="write_encoder"):
        serve_tuning(None, ["write_encoder=both"])


def test_pdf_reading_keys_are_the_old_flags():
    assert pdf_reading(None, ["pdf_timeout=30", "grobid_consolidate=true"]) == PdfReading(
        pdf_timeout=30, grobid_consolidate=True)


@pytest.mark.parametrize("command", [["index", "serve", "{tmp}"], ["corpus", "ingest", "{tmp}", "-o", "{tmp}/o"],
                                     ["corpus", "build", "{tmp}", "-o", "{tmp}/o"]])
def test_an_unknown_or_bad_key_is_one_error_line(command, tmp_path):
    args = [a.format(tmp=tmp_path) for a in command]
    result = runner.invoke(app, [*args, "--set", "no_such_key=1"])
    assert result.exit_code == 2 and "no_such_key" in result.output, result.output


def test_index_factory_string_is_checked_before_any_work(tmp_path):
    result = runner.invoke(app, ["index", "build", str(tmp_path), "--view", "ta", "--index", "LSH64", "-o",
                                 str(tmp_path / "i")])
    assert result.exit_code == 2 and "expected auto | Flat | HNSW<M>" in result.output, result.output
