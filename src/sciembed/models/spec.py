"""`EncoderSpec`: everything that decides which vectors an encoder makes, in one frozen value.

The CLI builds it from its encoder options, `Encoder.describe()` stores it in every manifest (``"spec"``),
and every consumer loads the encoder from it (`EncoderSpec.load`). Not in it: the cache, the device,
trust in a model's code and an embeddings server's timeout and retries (run-time choices). Manifests
from before the spec hold loose fields (`EncoderSpec.from_described` reads both). See docs/models.md.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

if TYPE_CHECKING:
    from sciembed.models.encoder import Encoder

class EncoderSpec(BaseModel):
    """Model id or path, backend, adapter, pooling, token budget, prefix, title/abstract join, quantisation,
    distance and (backend openai) the embeddings endpoint."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str = Field("minilm", description="a directory, hub id, alias (minilm, specter2) or training run")
    backend: Literal["torch", "onnx", "openai"] = "torch"
    adapter: str | None = Field(None, description="adapter hub id or directory (torch backend)")
    pooling: Literal["cls", "mean"] | None = Field(None, description="instead of the model's own pooling")
    max_seq_length: int | None = Field(None, ge=1, description="token budget (default: the model's)")
    prefix: str = Field("", description="text prepended to every input")
    ta_join: str | None = Field(None, description="between title and abstract: '. ' or 'sep'")
    quantize: bool | str = Field(False, description="int8 dynamic quantisation (onnx backend): true, or the "
                                 "quantization an index was built with (`onnx_backend.check_quantization`)")
    metric: Literal["cosine", "l2"] | None = Field(None, description="default: the model card's, else cosine")
    base_url: str | None = Field(None, description="backend openai: the /v1/embeddings server")
    api_key_env: str | None = Field(None, description="backend openai: variable holding the API key")
    dimensions: int | None = Field(None, ge=1, description="backend openai: vector size asked for")

    @field_validator("quantize")
    @classmethod
    def _known_quantization(cls, value: bool | str) -> bool | str:
        if isinstance(value, str):
            from sciembed.models.onnx_backend import check_quantization  # no heavy import at module level

            return check_quantization(value)
        return value

    def load_kwargs(self) -> dict[str, Any]:
        """The `load_encoder` keywords of this spec (unset optional fields left out)."""
        values = self.model_dump()
        kwargs = {"name": values.pop("model"), **{k: v for k, v in values.items() if v is not None}}
        if kwargs["name"] in ("minilm", "default"):
            kwargs["name"] = None  # the offline MiniLM
        return kwargs

    def load(self, *, cache_dir: Path | None = None, device: str | None = None, trust_remote_code: bool = False,
             timeout_s: float | None = None, max_retries: int | None = None) -> Encoder:
        """The encoder this spec describes, with the run-time choices given here."""
        from sciembed.models.loading import load_encoder

        runtime: dict[str, Any] = {"cache_dir": cache_dir, "device": device, "trust_remote_code": trust_remote_code}
        if self.backend == "openai":
            runtime = {"cache_dir": cache_dir, "timeout_s": timeout_s, "max_retries": max_retries}
        return load_encoder(**self.load_kwargs(), **runtime)

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump()

    def replace(self, **changes: Any) -> EncoderSpec:
        """A copy with `changes` applied (None values ignored), validated again."""
        given = {k: v for k, v in changes.items() if v is not None}
        return type(self).model_validate({**self.model_dump(), **given}) if given else self

    @classmethod
    def from_described(cls, described: dict[str, Any]) -> EncoderSpec:
        """The spec of an encoder's `describe()` as a manifest stores it: its ``spec``, else (a manifest written
        before the spec existed) its loose fields."""
        from sciembed.models.encoder import SPEC_KEY  # numpy: not for the command line's options

        stored = described.get(SPEC_KEY)
        if isinstance(stored, dict):
            fields = dict(stored)
        else:
            fields = {key: described.get(key) for key in ("backend", "adapter", "pooling", "max_seq_length", "prefix",
                                                          "ta_join", "quantize", "metric", "base_url", "api_key_env",
                                                          "dimensions")}
            fields["model"] = described.get("source") or described.get("name") or "minilm"
            if described.get("backend") != "openai":
                fields.update(base_url=None, api_key_env=None, dimensions=None)
            fields = {k: v for k, v in fields.items() if v is not None}
        label = described.get("quantization")  # the int8 file an index was built with: load that one again
        if fields.get("quantize") is True and isinstance(label, str):
            fields["quantize"] = label
        return cls.model_validate(fields)


def spec_of(encoder: Any) -> EncoderSpec:
    """The spec that loads `encoder` again (`models.encoder.spec_fields`)."""
    from sciembed.models.encoder import spec_fields

    return EncoderSpec.model_validate(spec_fields(encoder))
