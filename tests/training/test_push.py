"""Issue 31, item 6: `sciembed model push` and `train --push-to-hub` upload through huggingface_hub (a fake here)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import ClassVar

import huggingface_hub
import pytest
from typer.testing import CliRunner

from sciembed.cli.main import app
from sciembed.models.push import PLACEHOLDER_ID, PushError, push_model

runner = CliRunner(env={"COLUMNS": "200"})


class FakeHub:
    """Stands in for `huggingface_hub.HfApi`: records repositories and copies uploaded folders (no network)."""

    repos: ClassVar[dict[str, dict]] = {}
    uploads: ClassVar[dict[str, dict[str, bytes]]] = {}

    def __init__(self, *args, **kwargs) -> None:
        pass

    def create_repo(self, *, repo_id, repo_type=None, private=False, exist_ok=False):
        if repo_id in self.repos and not exist_ok:
            raise ValueError("exists")
        self.repos.setdefault(repo_id, {"private": private, "type": repo_type})
        return f"https://huggingface.co/{repo_id}"

    def upload_folder(self, *, repo_id, folder_path, repo_type=None, commit_message=None, ignore_patterns=None,
                      **kwargs):
        import fnmatch

        root = Path(folder_path)
        files = {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()
                 and not any(fnmatch.fnmatch(str(p.relative_to(root)), pat) for pat in ignore_patterns or [])}
        self.uploads[repo_id] = files
        return type("CommitInfo", (), {"commit_url": f"https://huggingface.co/{repo_id}/commit/abc",
                                       "message": commit_message})()


@pytest.fixture()
def fake_hub(monkeypatch):
    FakeHub.repos, FakeHub.uploads = {}, {}
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeHub)
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("TRANSFORMERS_OFFLINE", raising=False)
    return FakeHub


@pytest.fixture(scope="module")
def trained_run(tiny_bert, tiny_corpus, tmp_path_factory):
    from sciembed.training import WindowConfig, load_config, train

    config = load_config(WindowConfig, None, {
        "model.base": str(tiny_bert), "model.max_seq_length": 32, "model.projection": None,
        "training.batch_size": 8, "training.mini_batch_size": 8, "training.max_steps": 1,
        "checkpoint.every_steps": 1})
    return train("window", config, tiny_corpus, tmp_path_factory.mktemp("run") / "run").parent


def test_model_push_uploads_the_saved_model_with_its_card(fake_hub, trained_run, tmp_path):
    run = shutil.copytree(trained_run, tmp_path / "run")
    result = runner.invoke(app, ["model", "push", str(run), "lab/window-minilm", "--private"])
    assert result.exit_code == 0, result.output
    assert "https://huggingface.co/lab/window-minilm/commit/abc" in result.output
    assert fake_hub.repos == {"lab/window-minilm": {"private": True, "type": "model"}}
    uploaded = fake_hub.uploads["lab/window-minilm"]
    assert {"modules.json", "config.json", "model.safetensors", "README.md"} <= set(uploaded)
    assert not any(name.startswith(("checkpoints", ".")) for name in uploaded)  # the model only
    card = uploaded["README.md"].decode()
    assert 'SentenceTransformer("lab/window-minilm")' in card and PLACEHOLDER_ID not in card


def test_push_refusals(fake_hub, trained_run, tmp_path, monkeypatch):
    with pytest.raises(PushError, match="owner/name"):
        push_model(trained_run, "just-a-name")
    with pytest.raises(PushError, match="not a saved sentence-transformers model"):
        push_model(tmp_path, "lab/x")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    result = runner.invoke(app, ["model", "push", str(trained_run), "lab/x"])
    assert result.exit_code == 2 and "HF_HUB_OFFLINE" in result.output, result.output
    assert fake_hub.uploads == {}


def test_a_hub_error_is_one_line(fake_hub, trained_run, monkeypatch):
    import httpx
    from huggingface_hub.errors import HfHubHTTPError

    def refuse(self, **kwargs):
        try:
            error = HfHubHTTPError("401 Unauthorized: invalid token")
        except TypeError:  # huggingface_hub 1.x wants the response
            request = httpx.Request("POST", "https://huggingface.co/api/repos/create")
            error = HfHubHTTPError("401 Unauthorized: invalid token", response=httpx.Response(401, request=request))
        raise error

    monkeypatch.setattr(FakeHub, "create_repo", refuse)
    result = runner.invoke(app, ["model", "push", str(trained_run), "lab/x"])
    assert result.exit_code == 2 and "401 Unauthorized" in result.output, result.output


def test_train_push_to_hub_uploads_after_training(fake_hub, tiny_bert, tiny_corpus, tmp_path):
    args = ["train", "window", "--corpus", str(tiny_corpus), "--out", str(tmp_path / "run"),
            "--base-model", str(tiny_bert), "--max-seq-length", "32", "--max-steps", "1", "--batch-size", "8",
            "--mini-batch-size", "8", "--set", "model.projection=null", "--set", "checkpoint.every_steps=1",
            "--push-to-hub", "lab/s2full-tiny"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "modules.json" in fake_hub.uploads["lab/s2full-tiny"]
    refused = runner.invoke(app, [*args[:-1], "not a repo"])
    assert refused.exit_code == 2 and "not a hub repository id" in refused.output, refused.output
