"""`sciembed study real` end to end on a small corpus with a tiny model: stages, results, resume."""

from __future__ import annotations

import json

import pytest
import yaml

from sciembed.experiments.real_study import RealStudyError, load_real_study, run_real_study


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    from sciembed.synth import write_synthetic

    root = tmp_path_factory.mktemp("synth")
    write_synthetic(root, 160, seed=0, progress=False)
    return root / "papers.jsonl.gz"


def write_study(tmp_path, source, bert, **extra):
    arm = {"model.base": str(bert), "model.max_seq_length": 32, "training.max_steps": 2,
           "training.batch_size": 10, "training.mini_batch_size": 10, "training.loss": "mnrl"}
    (tmp_path / "window.yaml").write_text(yaml.safe_dump({"recipe": "window", "model": {"projection": None}}))
    study = {
        "source": str(source), "base": str(bert),
        "build": {"test_size": 0.2, "val_size": 0.1},
        "max_seq_length": 64,
        "suite": {"significance_metric": "ndcg@10", "benchmarks": [
            {"name": "acl", "kind": "citation", "path": "{out}/corpus", "query_mode": "linked", "geometry": True}]},
        "arms": {
            "window": {"recipe": "window", "config": "window.yaml", "overrides": arm},
            "window_ta_ta": {"recipe": "window", "config": "window.yaml", "ablation_of": "window",
                             "overrides": {**arm, "data.strategy": "ta_ta"}},
        },
        **extra,
    }
    path = tmp_path / "study.yaml"
    path.write_text(yaml.safe_dump(study))
    return path


def test_study_trains_every_arm_and_evaluates_it_through_eval_suite(tmp_path, source, tiny_bert):
    config = load_real_study(write_study(tmp_path, source, tiny_bert))
    lines: list[str] = []
    out = tmp_path / "out"
    run = run_real_study(config, out, say=lines.append)
    assert [m.name for m in run.suite.models] == ["base", "bm25", "window", "window_ta_ta"]
    results = json.loads((out / "eval" / "results.json").read_text())
    assert set(results["study"]["arms"]) == {"window", "window_ta_ta"}
    scenarios = {"ta_ta", "body_ta/windowed", "body_body/windowed"}
    for cell in results["cells"]:
        tasks = {r["task"]: r for r in cell["results"]}
        assert scenarios <= set(tasks), cell["model"]
        assert all({"ndcg@10", "map", "mrr", "recall@10"} <= set(tasks[t]["metrics"]) for t in scenarios)
    tested = {(s["model"], s["baseline"], s["task"]) for s in results["significance"]}
    assert all(s["metric"] == "ndcg@10" and s["n"] > 0 for s in results["significance"])
    for model in ("bm25", "window", "window_ta_ta"):
        assert {(model, "base", t) for t in scenarios} <= tested
    assert {("window_ta_ta", "window", t) for t in scenarios} <= tested  # the ablation against its arm
    assert not any(m == "base" for m, _, _ in tested)
    # every dense model read the study's budget, whatever its training budget (32) records
    assert {m["window_tokens"] for m in results["suite"]["models"] if m["model"] != "bm25"} == {64}
    assert "| window_ta_ta | window |" in (out / "eval" / "report.md").read_text()
    assert any(line.startswith("[train window]") for line in lines)

    again: list[str] = []
    assert run_real_study(config, out, say=again.append).computed == 0  # every cell reused
    assert not any(line.startswith(("[ingest]", "[build]", "[train", "  done")) for line in again)


def test_unknown_ablation_reference_is_refused(tmp_path, source, tiny_bert):
    path = write_study(tmp_path, source, tiny_bert)
    data = yaml.safe_load(path.read_text())
    data["arms"]["window_ta_ta"]["ablation_of"] = "nope"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(RealStudyError, match="ablation of 'nope'"):
        load_real_study(path)


def test_an_arm_stopped_before_its_first_checkpoint_is_trained_again(tmp_path, source, tiny_bert):
    config = load_real_study(write_study(tmp_path, source, tiny_bert))
    (tmp_path / "out" / "runs" / "window" / "checkpoints").mkdir(parents=True)  # killed before step 1 saved
    lines: list[str] = []
    run = run_real_study(config, tmp_path / "out", only=("window",), say=lines.append)
    assert [m.name for m in run.suite.models] == ["base", "bm25", "window"]
    assert any("no complete checkpoint yet" in line for line in lines)
