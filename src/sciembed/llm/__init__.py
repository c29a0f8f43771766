"""The LLM layer: one OpenAI-compatible client (completions + chat), an on-disk cache, versioned
prompt templates, shared CLI options, and a fake server for tests. Lower stages never import it."""

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
