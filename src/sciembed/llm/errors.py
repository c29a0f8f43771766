"""What can go wrong talking to an LLM endpoint, each with a message a user can act on."""

from __future__ import annotations

from sciembed.errors import SciembedInputError


class LLMError(SciembedInputError, RuntimeError):
    """An LLM call that did not give a usable reply (after retries, where retrying makes sense)."""


class LLMAuthError(LLMError):
    """The endpoint refused the credentials (401/403); retrying cannot help."""


class LLMResponseError(LLMError):
    """The endpoint answered, but not with an OpenAI-shaped reply (bad JSON, no choices)."""


class LLMCacheMissError(LLMError):
    """Cache-only mode found requests that are not in the cache; nothing was sent."""


class PromptError(SciembedInputError, ValueError):
    """A prompt template that is missing, malformed, or rendered without one of its variables."""
