"""The LLM layer: one OpenAI-compatible client (completions + chat), an on-disk cache, versioned
prompt templates and shared CLI options (the fake server for tests is tests/fakes/llm_server.py).
Lower stages never import it."""

from sciembed.llm.cache import LLMCache
from sciembed.llm.client import CallStats, LLMClient, LLMReply, LLMRequest
from sciembed.llm.config import LLMConfig, Sampling
from sciembed.llm.errors import LLMAuthError, LLMCacheMissError, LLMError, LLMResponseError, PromptError
from sciembed.llm.prompts import PromptTemplate, available_prompts, load_prompt

__all__ = [
    "CallStats",
    "LLMAuthError",
    "LLMCache",
    "LLMCacheMissError",
    "LLMClient",
    "LLMConfig",
    "LLMError",
    "LLMReply",
    "LLMRequest",
    "LLMResponseError",
    "PromptError",
    "PromptTemplate",
    "Sampling",
    "available_prompts",
    "load_prompt",
]
