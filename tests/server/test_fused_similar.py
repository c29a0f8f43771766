"""The service's "similar papers" with the saved fusion: the same ranking as `sciembed search … --fusion`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from sciembed.index.bm25_paper import build_bm25_index
from sciembed.index.collection import Collection
from sciembed.index.paper_index import build_paper_index
from sciembed.models import load_encoder
from sciembed.search.batch import search_batch
from sciembed.search.learned_fusion import MEASURED_FUSION, FusionError, FusionSpec
from sciembed.search.served import FusedPaperSearch
from sciembed.server import ServerSettings, create_app

SPEC = FusionSpec(["bm25", "a2a", "late"], "wsum", "min-max", {"weights": [0.5, 0.3, 0.2]})


@pytest.fixture(scope="module")
def three_indexes(built_index, tmp_path_factory) -> dict[str, Path]:
    """BM25 over full texts, dense TA and dense TA + section pieces of the 49 unarXive papers (tiny BERT)."""
    root = tmp_path_factory.mktemp("fused")
    corpus, model = built_index.parent / "corpus", built_index.parent / "tiny"
    encoder = load_encoder(str(model))
    build_bm25_index(corpus, "fulltext", root / "bm25")
    build_paper_index(corpus, encoder, "ta", root / "ta", show_progress=False)
    build_paper_index(corpus, encoder, "ta+section", root / "late", show_progress=False)
    Collection.open(root / "late", encoder).close()
    return {"bm25": root / "bm25", "ta": root / "ta", "late": root / "late"}


@pytest.fixture()
def fused_collection(three_indexes, tmp_path):
    served = Path(shutil.copytree(three_indexes["late"], tmp_path / "late"))
    search = FusedPaperSearch(SPEC, [three_indexes["bm25"], three_indexes["ta"]], "ta+section")
    opened = Collection.open(served, paper_search=search)
    yield opened, served
    opened.close()


def test_similar_papers_rank_as_search_with_the_fusion(fused_collection, three_indexes):
    collection, served = fused_collection
    client = TestClient(create_app(collection, ServerSettings(max_k=20)), base_url="http://localhost")
    pid = sorted(collection.index.papers)[3]
    body = client.post("/search", json={"paper_id": pid, "k": 10}).json()
    expected, _ = search_batch([three_indexes["bm25"], three_indexes["ta"], served], papers=[pid], k=10,
                               method="late", fusion=SPEC)
    assert [h["id"] for h in body["hits"]] == [d for d, _ in expected[0][1]]
    assert [h["score"] for h in body["hits"]] == pytest.approx([s for _, s in expected[0][1]], abs=1e-6)
    assert pid not in [h["id"] for h in body["hits"]]
    # the fusion differs from the collection's own (late) ranking: the companions count
    late_only = [d for d, _ in collection.index.search_paper_views(pid, 10, "late")]
    assert late_only != [h["id"] for h in body["hits"]]


def test_a_deleted_paper_is_never_similar(fused_collection):
    collection, _ = fused_collection
    pid = sorted(collection.index.papers)[3]
    first = collection.search(paper_id=pid, k=5).hits[0].id
    assert collection.delete(first)
    assert first not in [h.id for h in collection.search(paper_id=pid, k=20).hits]


def test_a_fusion_the_indexes_cannot_answer_is_refused(three_indexes):
    with pytest.raises(FusionError, match=r"missing \['bm25'\]"):
        FusedPaperSearch(SPEC, [three_indexes["ta"]], "ta+section")
    with pytest.raises(FusionError, match="already answers"):
        FusedPaperSearch(SPEC, [three_indexes["ta"], three_indexes["ta"]], "ta+section")


def test_serve_fusion_options(three_indexes, tmp_path):
    import typer

    from sciembed.cli.serve import fused_paper_search

    path = SPEC.save(tmp_path / "fusion.json")
    with pytest.raises(typer.Exit) as exited:
        fused_paper_search(three_indexes["late"], [], path)
    assert exited.value.exit_code == 2
    search = fused_paper_search(three_indexes["late"], [three_indexes["bm25"], three_indexes["ta"]], path)
    assert search.label == SPEC.label and search.served == "late"


def test_without_a_tuned_fusion_the_measured_default_fuses_bm25_a2a_late(three_indexes):
    from sciembed.cli.serve import fused_paper_search

    measured = FusionSpec.load(MEASURED_FUSION)
    assert sorted(measured.runs) == ["a2a", "bm25", "late"] and measured.tuned["measured_on"].startswith("ACL")
    search = fused_paper_search(three_indexes["late"], [three_indexes["bm25"], three_indexes["ta"]], None)
    assert search.label == measured.label != SPEC.label
    with pytest.raises(FusionError, match="not those of the measured default"):  # runs it was not measured for
        FusedPaperSearch(None, [three_indexes["ta"]], "ta+section")


def test_search_by_paper_uses_the_measured_default_and_says_so(three_indexes):
    dirs = [three_indexes["bm25"], three_indexes["ta"], three_indexes["late"]]
    notes: list[str] = []
    pid = sorted(Collection.open(three_indexes["late"]).index.papers)[3]
    default, _ = search_batch(dirs, papers=[pid], k=10, method="late", notes=notes)
    measured, _ = search_batch(dirs, papers=[pid], k=10, method="late", fusion=FusionSpec.load(MEASURED_FUSION))
    assert default == measured and "measured best on real papers" in notes[0]
    rrf_notes: list[str] = []  # two indexes are not the measured runs: RRF, said as such
    search_batch(dirs[:2], papers=[pid], k=10, notes=rrf_notes)
    assert rrf_notes == ["fused by RRF (k=60): no fusion.json in the index directories"]


def _copy_of(built_index: Path, pid: str, new_id: str, title_suffix: str = " (a copy)"):
    """The paper's text under another id; its title changed, or it would be the query's title twin (excluded)."""
    from dataclasses import replace

    from sciembed.corpus.layout import CorpusDir

    original = next(p for p in CorpusDir(built_index.parent / "corpus").iter_papers() if p.id == pid)
    return replace(original, id=new_id, title=original.title + title_suffix)


def test_a_live_copy_of_the_query_paper_ranks_first(fused_collection, three_indexes, built_index):
    """The companions are snapshots: a copy added live (its title changed) must still be found by every run."""
    collection, served = fused_collection
    pid = sorted(collection.index.papers)[3]
    copy = _copy_of(built_index, pid, "live-copy")
    assert collection.add_papers([copy])["added"] == 1
    assert collection.search(paper_id=pid, k=5).hits[0].id == "live-copy"
    # the copy as the query (by id: its full text comes from the catalog) finds the original first
    assert collection.search(paper_id="live-copy", k=5).hits[0].id == pid
    # each companion ranks the copy first, with the original's own scores (same text, same statistics)
    search = collection.paper_search
    for name in ("bm25", "a2a"):
        ranking = search._companion(collection, search.companions[name], copy, 10, [copy.id])
        assert ranking[0][0] == pid, name
    collection.compact()  # the catalog's copy of live papers' text survives compaction
    collection.close()
    # after a restart the overlay is rebuilt from the catalog
    again = Collection.open(served, paper_search=FusedPaperSearch(SPEC, [three_indexes["bm25"], three_indexes["ta"]],
                                                                  "ta+section"))
    try:
        assert again.search(paper_id=pid, k=5).hits[0].id == "live-copy"
        assert again.delete("live-copy")
        assert "live-copy" not in [h.id for h in again.search(paper_id=pid, k=20).hits]
        assert not again.paper_search.overlays["bm25"].papers and not again.paper_search.overlays["a2a"].papers
    finally:
        again.close()


def test_a_live_replacement_is_scored_by_its_new_text(fused_collection, built_index):
    """A paper re-added with another paper's text is ranked by the new text, not the snapshot's."""
    collection, _ = fused_collection
    ids = sorted(collection.index.papers)
    pid, other = ids[3], ids[10]
    collection.add_papers([_copy_of(built_index, pid, other)])  # `other` now holds pid's text
    assert collection.search(paper_id=pid, k=5).hits[0].id == other
    bm25 = collection.paper_search.companions["bm25"]
    ranking = collection.paper_search._companion(collection, bm25, collection.catalog.live_paper(other), 10, [other])
    assert ranking[0][0] == pid


@pytest.mark.parametrize("fused", [False, True], ids=["multiview", "fused"])
def test_a_live_title_twin_of_the_query_paper_is_never_similar(fused, fused_collection, collection, built_index):
    """As `sciembed index search` and evaluation: the query paper's title twins are excluded, live ones too."""
    served = fused_collection[0] if fused else collection
    pid = sorted(served.index.papers)[3]
    twin = _copy_of(built_index, pid, "live-twin", title_suffix="!")  # the same normalised title
    served.add_papers([twin, _copy_of(built_index, pid, "live-copy")])
    assert served.excluded(served.catalog.live_paper("live-twin")) == ["live-twin", pid]
    hits = [h.id for h in served.search(paper_id=pid, k=20).hits]
    assert hits[0] == "live-copy" and "live-twin" not in hits
    assert pid not in [h.id for h in served.search(paper_id="live-twin", k=20).hits]
    served.delete("live-twin")
    assert served.excluded(served.catalog.live_paper("live-copy")) == ["live-copy"]
