"""The LLM layer: one OpenAI-compatible client (completions + chat), an on-disk cache, versioned
prompt templates and shared CLI options (the fake server for tests is tests/fakes/llm_server.py).
Lower stages never import it."""

from __future__ import annotations

import importlib
from typing import Any

_HOME = {  # name -> module: imported on first use, so `sciembed --help` and the CLI's options need no HTTP stack
    "LLMCache": "cache", "LLMClient": "client", "LLMRequest": "client", "LLMConfig": "config", "Sampling": "config",
    "LLMAuthError": "errors", "LLMCacheMissError": "errors", "LLMError": "errors", "LLMResponseError": "errors",
    "PromptError": "errors", "available_prompts": "prompts", "load_prompt": "prompts",
}


def __getattr__(name: str) -> Any:
    if name not in _HOME:
        raise AttributeError(f"module 'sciembed.llm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"sciembed.llm.{_HOME[name]}"), name)


__all__ = [
    "LLMAuthError",
    "LLMCache",
    "LLMCacheMissError",
    "LLMClient",
    "LLMConfig",
    "LLMError",
    "LLMRequest",
    "LLMResponseError",
    "PromptError",
    "Sampling",
    "available_prompts",
    "load_prompt",
]
