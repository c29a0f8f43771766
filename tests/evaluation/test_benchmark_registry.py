"""The benchmark registry: one table of kinds, each with a loader; options a kind does not read are errors."""

from __future__ import annotations

import pytest

from sciembed.evaluation.benchmarks import BENCHMARKS, BenchmarkEntry, load_benchmark
from sciembed.evaluation.issues import BenchmarkError

ISSUE_KINDS = {"citation", "beir", "pools", "scitldr", "scirepeval", "csfcube", "triplets", "section_retrieval",
               "semantic", "paper_to_paper", "scifullbench"}


def test_every_kind_of_the_issue_is_in_the_one_table() -> None:
    assert set(BENCHMARKS) >= ISSUE_KINDS
    for kind in BENCHMARKS.values():
        assert callable(kind.load) and kind.headline and kind.description
        assert kind.options <= set(BenchmarkEntry.model_fields), kind.name


def test_an_option_the_kind_does_not_read_is_an_error(tmp_path) -> None:
    entry = BenchmarkEntry(name="b", kind="beir", path=str(tmp_path), scenarios=["ta_ta"], min_gold=3)
    with pytest.raises(BenchmarkError, match=r"option\(s\) min_gold, scenarios do not apply to kind beir"):
        load_benchmark(entry, tmp_path)


def test_an_unknown_kind_names_the_known_ones(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"unknown benchmark kind 'bier'.*beir"):
        BenchmarkEntry(name="b", kind="bier", path=str(tmp_path))
