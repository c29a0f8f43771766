"""Issue 32, item 3: SemCSE's semantic benchmark reads ``allenai/scirepeval`` as the hub serves it — one folder per
config with ``<split>-NNNNN-of-NNNNN.parquet`` shards — including configs released only as an ``evaluation`` split
(on the hub ``biomimicry`` holds a single ``evaluation-00000-of-00001.parquet``; ``mesh_descriptors`` has seven
``train`` shards beside its ``evaluation`` and ``validation`` files). Records have the fields allenai/scirepeval's
``evaluation/eval_datasets.py`` reads: ``doc_id``, ``title``, ``abstract``; ranking records a ``query`` object and
a ``candidates`` list. The texts are synthetic."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sciembed.evaluation.semantic import build_scirepeval_semantic_benchmark
from sciembed.papers.scirepeval import SciRepEvalDataError, read_release_papers, release_split, split_files

JSONL = Path(__file__).parent / "fixtures" / "scirepeval_semantic"
TOPICS = ("coral reef bleaching", "gecko adhesion", "lotus leaf wetting", "termite mound cooling",
          "owl wing silence", "shark skin drag", "spider silk strength", "bone remodelling")


def _papers(start: int, n: int, what: str) -> list[dict]:
    return [{"doc_id": str(start + i), "title": f"{TOPICS[i % len(TOPICS)].title()} {what} {start + i}",
             "abstract": f"We study {TOPICS[i % len(TOPICS)]} for {what}. Paper {start + i} reports its measurements."}
            for i in range(n)]


def _write(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture
def release(tmp_path: Path) -> Path:
    srp, test = tmp_path / "scirepeval", tmp_path / "scirepeval_test"
    _write(srp / "biomimicry" / "evaluation-00000-of-00001.parquet", _papers(1000, 10, "biomimicry"))
    mesh = _papers(2000, 12, "mesh")
    _write(srp / "mesh_descriptors" / "train-00000-of-00002.parquet", mesh[:6])
    _write(srp / "mesh_descriptors" / "train-00001-of-00002.parquet", mesh[6:])
    _write(srp / "mesh_descriptors" / "evaluation-00000-of-00001.parquet", _papers(2500, 4, "mesh evaluation"))
    ranking = [{"doc_id": f"q{i}", "query": _papers(3000 + i, 1, "query")[0],
                "candidates": _papers(3100 + 10 * i, 3, "candidate")} for i in range(3)]
    _write(srp / "a_ranking_config" / "evaluation-00000-of-00001.parquet", ranking)  # the IRDataset record shape
    _write(srp / "scidocs_mag_mesh" / "evaluation-00000-of-00001.parquet",
           _jsonl(JSONL / "scirepeval" / "scidocs_mag_mesh" / "evaluation.jsonl"))
    for split in ("train", "test"):
        _write(test / "scidocs_mag" / f"{split}-00000-of-00001.parquet",
               _jsonl(JSONL / "scirepeval_test" / "scidocs_mag" / f"{split}.jsonl"))
    return tmp_path


def test_the_release_parquet_shards_are_read_evaluation_only_configs_included(release):
    assert release_split(release, "biomimicry", "auto") == "evaluation"  # no train split on the hub
    assert release_split(release, "mesh_descriptors", "auto") == "train"
    assert len(split_files(release, "mesh_descriptors", "train")) == 2
    mesh = read_release_papers(release, "mesh_descriptors", "train")
    assert mesh.read == 12 and len(mesh.papers) == 12 and not mesh.rejected  # both shards, every row counted
    ranking = read_release_papers(release, "a_ranking_config", "evaluation")
    assert ranking.read == 3 and len(ranking.papers) == 12  # the query and 3 candidates of each record

    bench = build_scirepeval_semantic_benchmark(release, ["biomimicry", "mesh_descriptors", "a_ranking_config"],
                                                per_dataset=4, seed=0)
    assert bench.counts["splits"] == {"biomimicry": "evaluation", "mesh_descriptors": "train",
                                      "a_ranking_config": "evaluation"}
    assert bench.counts["per_dataset"] == {"biomimicry": 4, "mesh_descriptors": 4, "a_ranking_config": 4}
    assert {p.id for p in bench.papers if p.domain == "mesh_descriptors"} <= {str(i) for i in range(2000, 2012)}
    assert bench.clustering is not None  # SciDocs MAG's official split, read from Parquet shards too


def test_a_missing_split_names_what_to_download(release):
    with pytest.raises(SciRepEvalDataError, match="huggingface-cli download allenai/scirepeval"):
        read_release_papers(release, "biomimicry", "train")
