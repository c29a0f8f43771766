"""Issue 23, defect 5: a model directory's own Python code runs only with --trust-remote-code (recorded)."""

from __future__ import annotations

import json
import sys

import pytest
from typer.testing import CliRunner

from fakes.models import build_tiny_bert
from sciembed.cli.main import app
from sciembed.models import ModelLoadError, load_encoder

MARKER_CODE = '''
import pathlib
pathlib.Path(MARKER).write_text("custom code ran")
from sentence_transformers.sentence_transformer.modules import Normalize as Marker
'''


def planted_model(tmp_path, marker=None):
    """A tiny sentence-transformers model whose modules.json names a class from a .py file in the directory.

    Its code writes `marker` (default: RAN inside the model directory) when it runs."""
    root = build_tiny_bert(tmp_path / "model", ["alpha", "beta", "gamma"], seed=0)
    loaded = load_encoder(str(root))
    loaded.model.save(str(tmp_path / "st"))
    st = tmp_path / "st"
    (st / "custom_marker.py").write_text(MARKER_CODE.replace("MARKER", repr(str(marker or st / "RAN"))))
    modules = json.loads((st / "modules.json").read_text())
    modules.append({"idx": len(modules), "name": str(len(modules)) + "_Marker", "path": "",
                    "type": "custom_marker.Marker"})
    (st / "modules.json").write_text(json.dumps(modules))
    return st


def test_custom_code_is_refused_without_trust(tmp_path):
    st = planted_model(tmp_path)
    with pytest.raises(ModelLoadError, match="--trust-remote-code"):
        load_encoder(str(st))
    assert not (st / "RAN").exists()


def test_trusted_custom_code_runs_and_the_choice_is_recorded(tmp_path, shared_data):
    st = planted_model(tmp_path)
    encoder = load_encoder(str(st), trust_remote_code=True)
    assert (st / "RAN").exists() and encoder.describe()["trust_remote_code"] is True
    (st / "RAN").unlink()
    corpus = tmp_path / "corpus"
    runner = CliRunner()
    assert runner.invoke(app, ["corpus", "ingest", str(shared_data / "unarxive-sample"), "--out", str(corpus),
                               "--no-progress"]).exit_code == 0
    refused = runner.invoke(app, ["index", "build", str(corpus), "--out", str(tmp_path / "i1"), "--model", str(st)])
    assert refused.exit_code == 2 and "--trust-remote-code" in refused.output
    built = runner.invoke(app, ["index", "build", str(corpus), "--out", str(tmp_path / "i2"), "--model", str(st),
                                "--trust-remote-code"])
    assert built.exit_code == 0, built.output
    manifest = json.loads((tmp_path / "i2" / "manifest.json").read_text())
    assert manifest["encoder"]["trust_remote_code"] is True


def forget_marker_module() -> None:
    """Python imports a module once per process: drop the planted one so its code runs again when loaded."""
    for name in [m for m in sys.modules if "custom_marker" in m]:
        del sys.modules[name]


def test_searching_an_index_runs_model_code_only_when_the_user_says_so(tmp_path, shared_data, monkeypatch):
    """Issue 33, defect 8: the manifest's recorded trust (a file an attacker can edit, its seal deleted) is
    never enough; `index search` asks for --trust-remote-code or $SCIEMBED_TRUST_REMOTE_CODE at run time."""
    ran = tmp_path / "RAN"  # outside the model directory, whose files are its fingerprint
    st = planted_model(tmp_path, ran)
    runner = CliRunner()
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    assert runner.invoke(app, ["corpus", "ingest", str(shared_data / "unarxive-sample"), "--out", str(corpus),
                               "--no-progress"]).exit_code == 0
    built = runner.invoke(app, ["index", "build", str(corpus), "--out", str(index), "--model", str(st),
                                "--view", "ta", "--trust-remote-code"])
    assert built.exit_code == 0, built.output
    ran.unlink()
    forget_marker_module()
    manifest = json.loads((index / "manifest.json").read_text())
    manifest.pop("self_sha256")  # what the probe did: the unkeyed seal removed, trust_remote_code left true
    (index / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.delenv("SCIEMBED_TRUST_REMOTE_CODE", raising=False)
    search = ["index", "search", str(index), "--query", "alpha beta", "--k", "2"]
    refused = runner.invoke(app, search)
    assert refused.exit_code == 2 and "--trust-remote-code" in refused.output, refused.output
    assert not ran.exists()
    trusted = runner.invoke(app, [*search, "--trust-remote-code"])
    assert trusted.exit_code == 0, trusted.output
    assert ran.exists()
    ran.unlink()
    forget_marker_module()
    monkeypatch.setenv("SCIEMBED_TRUST_REMOTE_CODE", "1")
    assert runner.invoke(app, search).exit_code == 0 and ran.exists()
