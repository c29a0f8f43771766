"""Re-runs encode nothing (embedding cache) or nothing on the candidate side (saved indexes);
an index built by another encoder, for another benchmark, or changed on disk is refused."""

from __future__ import annotations

import pytest

from sciembed.evaluation import build_citation_benchmark, evaluate_encoder
from sciembed.models import CachedEncoder
from sciembed.retrieval.dense import IndexLoadError


@pytest.fixture
def bench(citation_corpus):
    return build_citation_benchmark(citation_corpus)


def test_second_run_encodes_nothing(bench, fake_encoder, tmp_path) -> None:
    cached = CachedEncoder(fake_encoder, tmp_path / "cache")
    first = evaluate_encoder(cached, bench, show_progress=False)
    distinct = first.encoding["distinct"]
    assert first.encoding["encoded"] == distinct == sum(fake_encoder.calls) > 0
    fake_encoder.calls.clear()
    second = evaluate_encoder(cached, bench, show_progress=False)
    assert fake_encoder.calls == []  # the model never ran
    assert second.encoding["encoded"] == 0 and second.encoding["cache_hits"] == distinct
    assert second.per_query == first.per_query
    assert second.geometry == first.geometry


def test_saved_indexes_are_reused(bench, fake_encoder, tmp_path) -> None:
    first = evaluate_encoder(fake_encoder, bench, body_modes=("full",), show_progress=False,
                             index_dir=tmp_path / "idx")
    assert sorted(p.name for p in (tmp_path / "idx").iterdir()) == ["body_full", "ta"]
    fake_encoder.calls.clear()
    second = evaluate_encoder(fake_encoder, bench, body_modes=("full",), show_progress=False,
                              index_dir=tmp_path / "idx")
    # Every text of this run is also a candidate text (TA of 7 papers, full body of 6), so all come from the indexes.
    assert second.encoding["from_index"] == second.encoding["distinct"] == 7 + 6
    assert fake_encoder.calls == [] and second.encoding["encoded"] == 0
    assert second.per_query == first.per_query


def test_index_of_another_encoder_is_refused(bench, fake_encoder, angle_encoder, tmp_path) -> None:
    evaluate_encoder(fake_encoder, bench, scenarios=("ta_ta",), show_progress=False, index_dir=tmp_path / "idx")
    other = angle_encoder({"ta-A": 0}, name="other")
    with pytest.raises(IndexLoadError, match=r"built with encoder fingerprint fake:fake:20, but the query encoder has "
                                             r"fake:other:20"):
        evaluate_encoder(other, bench, scenarios=("ta_ta",), show_progress=False, index_dir=tmp_path / "idx")


def test_index_changed_on_disk_is_refused(bench, fake_encoder, tmp_path) -> None:
    evaluate_encoder(fake_encoder, bench, scenarios=("ta_ta",), show_progress=False, index_dir=tmp_path / "idx")
    ids = tmp_path / "idx" / "ta" / "ids.json"
    ids.write_text(ids.read_text().replace('"A"', '"Z"'))
    with pytest.raises(IndexLoadError, match="checksum mismatch"):
        evaluate_encoder(fake_encoder, bench, scenarios=("ta_ta",), show_progress=False, index_dir=tmp_path / "idx")


def test_index_of_another_benchmark_is_refused(bench, fake_encoder, tmp_path, citation_corpus) -> None:
    evaluate_encoder(fake_encoder, bench, scenarios=("ta_ta",), show_progress=False, index_dir=tmp_path / "idx")
    reseeded = build_citation_benchmark(citation_corpus, paper_log_seed=7)
    with pytest.raises(IndexLoadError, match="built for benchmark"):
        evaluate_encoder(fake_encoder, reseeded, scenarios=("ta_ta",), show_progress=False,
                         index_dir=tmp_path / "idx")
