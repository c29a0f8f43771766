"""Versioned prompt templates, one YAML file each: ``prompts/<name>.v<N>.yaml`` (docs/llm.md).

Placeholders use ``string.Template`` syntax (``${title}``) so that JSON braces need no escaping. The sha256 of
the file's text is part of every cache key: editing a prompt without bumping its version never replays stale
answers.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from string import Template
from typing import Literal

import yaml

from sciembed.llm.errors import PromptError

TemplateKind = Literal["completion", "chat"]
_FILE = re.compile(r"^(?P<name>[a-z0-9_]+)\.v(?P<version>\d+)\.yaml$")


@dataclass(frozen=True)
class PromptTemplate:
    name: str
    version: int
    kind: TemplateKind
    prompt: str | None  # completion templates
    system: str | None  # chat templates
    user: str | None
    sha256: str  # of the file's text

    @property
    def id(self) -> str:
        return f"{self.name}.v{self.version}"

    @property
    def variables(self) -> set[str]:
        parts = [p for p in (self.prompt, self.system, self.user) if p]
        return {m.group("named") or m.group("braced") for p in parts for m in Template.pattern.finditer(p)
                if m.group("named") or m.group("braced")}

    def _fill(self, text: str, values: dict[str, str]) -> str:
        missing = sorted(self.variables - values.keys())
        if missing:
            raise PromptError(f"prompt {self.id}: no value for {', '.join(missing)}")
        return Template(text).substitute(values)

    def render_prompt(self, values: dict[str, str]) -> str:
        """The text a base model continues (completion templates)."""
        if self.kind != "completion" or self.prompt is None:
            raise PromptError(f"prompt {self.id} is a {self.kind} template, not a completion one")
        return self._fill(self.prompt, values)

    def render_messages(self, values: dict[str, str]) -> list[dict[str, str]]:
        """Chat messages (chat templates): an optional system message and the user message."""
        if self.kind != "chat" or self.user is None:
            raise PromptError(f"prompt {self.id} is a {self.kind} template, not a chat one")
        messages = [{"role": "system", "content": self._fill(self.system, values)}] if self.system else []
        return [*messages, {"role": "user", "content": self._fill(self.user, values)}]


def parse_template(text: str, name: str, version: int, where: str) -> PromptTemplate:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise PromptError(f"{where}: not valid YAML ({err})") from err
    if not isinstance(data, dict):
        raise PromptError(f"{where}: expected a mapping with kind and prompt/system/user")
    unknown = sorted(set(data) - {"kind", "description", "prompt", "system", "user"})
    if unknown:
        raise PromptError(f"{where}: unknown keys {', '.join(unknown)}")
    kind = data.get("kind")
    if kind == "completion" and not isinstance(data.get("prompt"), str):
        raise PromptError(f"{where}: a completion template needs a 'prompt' string")
    if kind == "chat" and not isinstance(data.get("user"), str):
        raise PromptError(f"{where}: a chat template needs a 'user' string")
    if kind not in ("completion", "chat"):
        raise PromptError(f"{where}: kind must be 'completion' or 'chat', not {kind!r}")
    return PromptTemplate(name=name, version=version, kind=kind, prompt=data.get("prompt"),
                          system=data.get("system"), user=data.get("user"),
                          sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())


def _bundled() -> dict[tuple[str, int], str]:
    found = {}
    for entry in resources.files("sciembed.llm").joinpath("prompts").iterdir():
        match = _FILE.match(entry.name)
        if match:
            found[(match["name"], int(match["version"]))] = entry.read_text(encoding="utf-8")
    return found


def available_prompts() -> list[str]:
    """Every bundled template as ``name.vN``."""
    return sorted(f"{name}.v{version}" for name, version in _bundled())


def load_prompt(name: str, version: int | None = None) -> PromptTemplate:
    """A bundled template by name (newest version unless one is given), or a template file by path."""
    path = Path(name)
    if path.suffix in (".yaml", ".yml") and path.exists():
        match = _FILE.match(path.name)
        if not match:
            raise PromptError(f"{path}: template files are named <name>.v<N>.yaml")
        return parse_template(path.read_text(encoding="utf-8"), match["name"], int(match["version"]), str(path))
    bundled = _bundled()
    versions = sorted(v for n, v in bundled if n == name)
    if not versions:
        raise PromptError(f"no prompt template {name!r}; bundled: {', '.join(available_prompts()) or 'none'}")
    chosen = versions[-1] if version is None else version
    if (name, chosen) not in bundled:
        raise PromptError(f"prompt {name!r} has no version {chosen}; versions: {versions}")
    return parse_template(bundled[(name, chosen)], name, chosen, f"sciembed/llm/prompts/{name}.v{chosen}.yaml")
