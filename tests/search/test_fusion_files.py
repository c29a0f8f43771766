"""Fusion files are checked when loaded: a bad weight, k or run list is refused naming the file and the field.

Issue #33, defect 6: NaN weights made every score null, negative weights inverted the ranking, RRF k = -1
answered 500 on every similar-papers request, duplicate run names were accepted and non-numbers crashed the
start with a traceback.
"""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.search.learned_fusion import MEASURED_FUSION, FusionError, FusionSpec

runner = CliRunner(env={"COLUMNS": "200"})
WSUM = {"runs": ["bm25", "a2a", "late"], "method": "wsum", "norm": "zmuv", "params": {"weights": [0.6, 0.2, 0.2]}}
RRF = {"runs": ["bm25", "late"], "method": "rrf", "params": {"k": 60}}


def _with(base: dict, **changes) -> dict:
    return {**base, **changes}


BAD = {
    "nan weight": ('{"runs": ["bm25", "a2a"], "method": "wsum", "norm": "zmuv", "params": {"weights": [NaN, 1]}}',
                   "params.weights"),
    "infinite weight": ('{"runs": ["bm25", "a2a"], "method": "wsum", "norm": "zmuv", '
                        '"params": {"weights": [Infinity, 1]}}', "params.weights"),
    "negative weight": (json.dumps(_with(WSUM, params={"weights": [0.6, -0.2, 0.2]})), "params.weights"),
    "all-zero weights": (json.dumps(_with(WSUM, params={"weights": [0, 0, 0]})), "params.weights"),
    "text weight": (json.dumps(_with(WSUM, params={"weights": ["a", "b", "c"]})), "params.weights"),
    "bool weight": (json.dumps(_with(WSUM, params={"weights": [True, 1, 1]})), "params.weights"),
    "rrf k -1": (json.dumps(_with(RRF, params={"k": -1})), "params.k"),
    "rrf k 0": (json.dumps(_with(RRF, params={"k": 0})), "params.k"),
    "rrf k text": (json.dumps(_with(RRF, params={"k": "sixty"})), "params.k"),
    "rrf k huge int": ('{"runs": ["a", "b"], "method": "rrf", "params": {"k": 1' + "0" * 400 + "}}", "params.k"),
    "duplicate runs": (json.dumps(_with(RRF, runs=["bm25", "bm25"])), "bm25 named twice"),
    "non-text run": (json.dumps(_with(RRF, runs=["bm25", 3])), "runs"),
    "params not an object": (json.dumps(_with(RRF, params=[60])), "params"),
    "method not a text": (json.dumps(_with(RRF, method=["rrf"])), "unknown fusion method"),
}


@pytest.mark.parametrize("name", list(BAD))
def test_a_bad_fusion_file_is_refused_naming_the_file_and_field(tmp_path, name):
    text, field = BAD[name]
    path = tmp_path / "fusion.json"
    path.write_text(text)
    with pytest.raises(FusionError) as caught:
        FusionSpec.load(path)
    assert str(path) in str(caught.value) and field in str(caught.value)


def test_good_files_still_load(tmp_path):
    assert FusionSpec.load(MEASURED_FUSION).params["weights"] == [0.7, 0.1, 0.2]
    path = tmp_path / "fusion.json"
    path.write_text(json.dumps(_with(WSUM, params={"weights": [1, 0, 0.0]})))  # a zero weight is a choice
    assert FusionSpec.load(path).label == "wsum(zmuv; bm25=1, a2a=0, late=0)"
    path.write_text(json.dumps(_with(RRF, params={"k": 0.5})))
    assert FusionSpec.load(path).label == "rrf(k=0.5)"


def test_the_cli_refuses_a_bad_fusion_file_in_one_line(tmp_path):
    path = tmp_path / "fusion.json"
    path.write_text(json.dumps(_with(WSUM, params={"weights": ["x", "y", "z"]})))
    result = runner.invoke(app, ["index", "search", str(tmp_path / "a"), str(tmp_path / "b"), "--paper", "p1",
                                 "--fusion", str(path)])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and str(path) in result.output and "params.weights" in result.output
