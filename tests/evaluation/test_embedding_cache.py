"""A re-run encodes nothing: every text comes from the on-disk embedding cache, and the numbers are the same."""

from __future__ import annotations

from sciembed.evaluation import build_citation_benchmark, evaluate, scenario_benchmark
from sciembed.models import CachedEncoder


def test_second_run_encodes_nothing(citation_corpus, fake_encoder, tmp_path) -> None:
    bench = scenario_benchmark(build_citation_benchmark(citation_corpus), geometry=True)
    cached = CachedEncoder(fake_encoder, tmp_path / "cache")
    first = evaluate(cached, bench, show_progress=False)
    distinct = first.encoded["texts_requested"]
    assert first.encoded["texts_run_through_model"] == distinct == sum(fake_encoder.calls) > 0
    fake_encoder.calls.clear()
    second = evaluate(CachedEncoder(fake_encoder, tmp_path / "cache"), bench, show_progress=False)
    assert fake_encoder.calls == []  # the model never ran
    assert second.encoded == {"texts_requested": distinct, "texts_run_through_model": 0}
    assert [r.per_query for r in second.results] == [r.per_query for r in first.results]
    assert second.result("geometry").metrics == first.result("geometry").metrics
