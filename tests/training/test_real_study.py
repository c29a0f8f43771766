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
        "evaluation": {"max_seq_length": 64, "queries": "linked"},
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


def test_study_trains_evaluates_and_tests_every_arm_against_the_base(tmp_path, source, tiny_bert):
    config = load_real_study(write_study(tmp_path, source, tiny_bert))
    lines: list[str] = []
    results = run_real_study(config, tmp_path / "out", say=lines.append)
    models = results["models"]
    assert list(models) == ["base", "bm25", "window", "window_ta_ta"]
    tasks = models["window"]["tasks"]
    assert set(tasks) == {"acl_ta_ta", "acl_body_ta", "acl_body_body"}
    assert all(t["n"] > 0 and 0 <= t["score"] <= 100 and "p_vs_base" in t for t in tasks.values())
    assert "p_vs_base" not in models["base"]["tasks"]["acl_ta_ta"]
    assert set(results["ablations"]["window_ta_ta"]) == set(tasks)
    saved = json.loads((tmp_path / "out" / "results.json").read_text())
    assert saved == json.loads(json.dumps(results))
    report = (tmp_path / "out" / "report.md").read_text()
    assert "| window_ta_ta |" in report and "central ablation" in report
    # trained models are evaluated at the study's budget, not their training budget
    assert any(line.startswith("[train window]") for line in lines)

    again: list[str] = []
    assert run_real_study(config, tmp_path / "out", say=again.append) == results
    assert again == []  # everything reused: nothing ingested, built, trained or evaluated twice


def test_unknown_ablation_reference_is_refused(tmp_path, source, tiny_bert):
    path = write_study(tmp_path, source, tiny_bert)
    data = yaml.safe_load(path.read_text())
    data["arms"]["window_ta_ta"]["ablation_of"] = "nope"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(RealStudyError, match="ablation of 'nope'"):
        load_real_study(path)
