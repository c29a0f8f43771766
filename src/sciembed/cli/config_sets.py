"""Settings a run reads from `-c FILE.yaml`, then `--set KEY=VALUE` (`pdf_options`, `serve_config`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

S = TypeVar("S", bound="SetsConfig")


class SetsConfig(BaseModel):
    """A frozen settings model with no unknown keys; its fields' defaults and descriptions are its help."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @classmethod
    def read(cls: type[S], config: Path | None, sets: list[str], error: type[Exception], what: str) -> S:
        """`-c` then `--set`: `config`'s keys, overridden by `sets`' ``key=value`` (read as YAML), validated; a bad
        one raises `error` (`what`: the file's kind, for its message)."""
        from sciembed.ioutil.yaml_config import read_yaml_mapping, validate_model
        from sciembed.training.config import parse_overrides

        data: dict[str, Any] = read_yaml_mapping(config, error, what) if config else {}
        data.update(parse_overrides(sets))
        return validate_model(cls, data, str(config or "--set"), error)

    @classmethod
    def help_text(cls) -> str:
        """``key [default]: description`` of every field, for a command's help."""
        return "; ".join(f"{name} [{field.default}]: {field.description}" for name, field in cls.model_fields.items())
