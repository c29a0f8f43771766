"""Issue 15 defect 5 and 8 (training side): finished runs resume to themselves, incomplete checkpoints are skipped."""

from __future__ import annotations

import json

import pytest
import torch

from sciembed.training import WindowConfig, load_config, train
from sciembed.training.rundir import RunDir, RunDirError


def _config(bert) -> WindowConfig:
    return load_config(WindowConfig, None, {
        "model.base": str(bert), "model.max_seq_length": 64, "model.projection": {"hidden": 24, "out": 16},
        "training.batch_size": 10, "training.mini_batch_size": 4, "training.epochs": 2, "training.max_steps": 6,
        "training.learning_rate": 1e-3, "training.log_every_steps": 1, "checkpoint.every_steps": 3,
        "checkpoint.keep": None,
    })


def _weights(model_dir):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_dir), device="cpu").state_dict()


@pytest.fixture(scope="module")
def finished(tiny_bert, tiny_corpus, tmp_path_factory):
    root = tmp_path_factory.mktemp("resume-hardening")
    model = train("window", _config(tiny_bert), tiny_corpus, root / "run")
    return root / "run", _weights(model)


def _same(a, b) -> None:
    assert a.keys() == b.keys()
    for name in a:
        torch.testing.assert_close(a[name], b[name], rtol=1e-5, atol=1e-6, msg=name)


def test_a_finished_run_resumes_to_itself(finished, tiny_bert, tiny_corpus):
    run_dir, full = finished
    model = train("window", _config(tiny_bert), tiny_corpus, run_dir, resume=True)
    summary = json.loads((run_dir / "summary.json").read_text())
    assert (summary["global_step"], summary["max_steps"], summary["completed"]) == (6, 6, True)
    _same(_weights(model), full)


def test_an_incomplete_checkpoint_is_skipped_for_the_previous_complete_one(finished, tiny_bert, tiny_corpus,
                                                                            tmp_path, capsys):
    import shutil

    run_dir, full = finished
    copy = shutil.copytree(run_dir, tmp_path / "run")
    shutil.rmtree(copy / "model")
    (copy / "checkpoints" / "checkpoint-6" / "rng_state.pth").unlink()
    assert RunDir(copy).last_checkpoint().name == "checkpoint-3"
    model = train("window", _config(tiny_bert), tiny_corpus, copy, resume=True)
    assert "skipping incomplete checkpoint" in capsys.readouterr().out
    assert json.loads((copy / "summary.json").read_text())["resumed_from_step"] == 3
    _same(_weights(model), full)


def test_a_corrupt_recipe_is_refused_with_a_message(finished, tiny_bert, tiny_corpus, tmp_path):
    import shutil

    copy = shutil.copytree(finished[0], tmp_path / "run")
    (copy / "recipe.json").write_text('{"recipe": "window", "conf')
    with pytest.raises(RunDirError, match=r"recipe\.json: unreadable"):
        train("window", _config(tiny_bert), tiny_corpus, copy, resume=True)
    for name in ("optimizer.pt", "rng_state.pth"):
        for ckpt in (copy / "checkpoints").iterdir():
            (ckpt / name).unlink()
    (copy / "recipe.json").write_text(json.dumps(json.loads((finished[0] / "recipe.json").read_text())))
    with pytest.raises(RunDirError, match=r"no complete checkpoint.*missing optimizer\.pt, rng_state\.pth"):
        train("window", _config(tiny_bert), tiny_corpus, copy, resume=True)


def test_return_freed_memory_is_a_switch_a_resumed_run_may_flip(finished, tiny_bert, tiny_corpus, tmp_path,
                                                                   monkeypatch):
    """`training.return_freed_memory: false` skips the allocator setting and changes no weight."""
    import shutil

    from sciembed.training import api

    calls = []
    monkeypatch.setattr(api, "return_freed_memory", lambda: calls.append(1))
    run_dir, full = finished
    copy = shutil.copytree(run_dir, tmp_path / "run")
    shutil.rmtree(copy / "model")
    shutil.rmtree(copy / "checkpoints" / "checkpoint-6")
    config = _config(tiny_bert).model_copy(update={"training": _config(tiny_bert).training.model_copy(
        update={"return_freed_memory": False})})
    model = train("window", config, tiny_corpus, copy, resume=True)
    assert calls == [] and json.loads((copy / "summary.json").read_text())["resumed_from_step"] == 3
    _same(_weights(model), full)
