"""Publishing a trained model: its saved sentence-transformers directory, uploaded whole to the Hugging Face Hub.

`push_model` (`sciembed model push`, `train --push-to-hub`) goes through huggingface_hub's own client and
token (``HF_TOKEN`` or ``huggingface-cli login``); the card's usage example is given the repository's name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciembed.errors import SciembedInputError

PLACEHOLDER_ID = "sentence_transformers_model_id"  # sentence-transformers' card before a model id is known
SKIPPED = [".*", "**/.*", "checkpoints/**"]  # hidden files (partial saves, locks) and training checkpoints


class PushError(SciembedInputError, ValueError):
    """The model or the repository cannot be pushed; the message says why."""


def model_folder(model: str | Path) -> Path:
    """The saved model directory of `model`: a model directory itself or a training run directory's ``model/``."""
    from sciembed.models.loading import ModelLoadError, run_directory_model

    path = Path(model).expanduser()
    if not path.is_dir():
        raise PushError(f"{path}: not a directory (a saved model or a training run directory)")
    try:
        folder = run_directory_model(path) or path
    except ModelLoadError as err:
        raise PushError(str(err)) from err
    if not ((folder / "modules.json").is_file() or (folder / "config.json").is_file()):
        raise PushError(f"{folder}: no modules.json or config.json (not a saved sentence-transformers model)")
    return folder


def check_repo_id(repo_id: str) -> str:
    """`repo_id` as the hub spells it (``owner/name``), or a `PushError` saying what is wrong."""
    from huggingface_hub.utils import HFValidationError, validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError as err:
        raise PushError(f"{repo_id!r}: not a hub repository id ({err})") from err
    if repo_id.count("/") != 1:
        raise PushError(f"{repo_id!r}: give the repository as owner/name (your user or organisation first)")
    return repo_id


def name_in_card(folder: Path, repo_id: str) -> bool:
    """Put `repo_id` into the README's usage example where sentence-transformers left its placeholder."""
    readme = folder / "README.md"
    if not readme.is_file():
        return False
    text = readme.read_text(encoding="utf-8")
    if PLACEHOLDER_ID not in text:
        return False
    from sciembed.ioutil.atomic import write_text_atomic

    write_text_atomic(readme, text.replace(PLACEHOLDER_ID, repo_id))
    return True


def push_model(model: str | Path, repo_id: str, *, private: bool = False, commit_message: str | None = None,
               api: Any = None) -> str:
    """Create `repo_id` if needed and upload the model directory to it; returns the commit's URL.

    Refused offline, for a directory that is not a saved model and for a malformed repository id; a hub
    error (no token, no right to write) becomes a `PushError` with the hub's message."""
    from sciembed.models.loading import hub_offline

    folder = model_folder(model)
    check_repo_id(repo_id)
    if hub_offline():
        raise PushError("HF_HUB_OFFLINE / TRANSFORMERS_OFFLINE is set: pushing needs the hub (unset it to push)")
    if api is None:
        from huggingface_hub import HfApi

        api = HfApi()
    name_in_card(folder, repo_id)
    from huggingface_hub.errors import HfHubHTTPError

    try:
        api.create_repo(repo_id=repo_id, repo_type="model", private=private, exist_ok=True)
        info = api.upload_folder(repo_id=repo_id, folder_path=str(folder), repo_type="model",
                                 commit_message=commit_message or f"Upload {folder.name} trained with sciembed",
                                 ignore_patterns=SKIPPED)
    except (HfHubHTTPError, OSError, ValueError) as err:
        raise PushError(f"pushing {folder} to {repo_id} failed: {err}") from err
    return str(getattr(info, "commit_url", None) or f"https://huggingface.co/{repo_id}")
