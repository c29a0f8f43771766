"""Issue 32, item 3 (in part): SemCSE's semantic benchmark draws from configs that ``allenai/scirepeval`` releases
only as ``evaluation`` files (the fixture's ``scidocs_mag_mesh`` is one, laid out as the release)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sciembed.evaluation.issues import BenchmarkError
from sciembed.evaluation.semantic import build_scirepeval_semantic_benchmark
from sciembed.papers.scirepeval import release_split

ROOT = Path(__file__).parent / "fixtures" / "scirepeval_semantic"


def test_an_evaluation_only_config_is_read_from_its_evaluation_split():
    assert release_split(ROOT, "fos", "auto") == "train"
    assert release_split(ROOT, "scidocs_mag_mesh", "auto") == "evaluation"
    bench = build_scirepeval_semantic_benchmark(ROOT, ["fos", "scidocs_mag_mesh"], per_dataset=8, seed=0)
    assert bench.counts["per_dataset"] == {"fos": 8, "scidocs_mag_mesh": 8}
    assert bench.counts["splits"] == {"fos": "train", "scidocs_mag_mesh": "evaluation"}
    assert {p.domain for p in bench.papers} == {"fos", "scidocs_mag_mesh"}
    assert len({p.id for p in bench.papers}) == 16  # a paper is drawn once


def test_an_explicit_split_is_kept():
    with pytest.raises(BenchmarkError, match="scidocs_mag_mesh"):
        build_scirepeval_semantic_benchmark(ROOT, ["fos", "scidocs_mag_mesh"], per_dataset=8, split="train")
