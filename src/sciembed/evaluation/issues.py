"""Bad benchmark input, counted instead of silently dropped.

Every loader records each kind of problem once, with where it happened (file:line
or element path), how many records it touched, a few example ids and what was
done about it. The report prints them all, so a score always comes with the list
of what it was *not* computed on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sciembed.errors import SciembedInputError

MAX_EXAMPLES = 5


class BenchmarkError(SciembedInputError, ValueError):
    """Input that cannot be evaluated at all (a missing file, an unusable folder)."""


@dataclass
class Issue:
    what: str  # "empty query text"
    action: str  # "query excluded"
    count: int = 0
    where: list[str] = field(default_factory=list)  # first few "file:line" / element paths
    examples: list[str] = field(default_factory=list)  # first few ids

    def message(self) -> str:
        where = ", ".join(self.where) + (", …" if self.where and self.count > len(self.where) else "")
        examples = ", ".join(self.examples) + (", …" if self.examples and self.count > len(self.examples) else "")
        parts = [f"{self.what}: {self.count} ({self.action})"]
        if where:
            parts.append(f"at {where}")
        if examples:
            parts.append(f"e.g. {examples}")
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"what": self.what, "action": self.action, "count": self.count, "where": self.where,
                "examples": self.examples, "message": self.message()}


class IssueLog:
    """Issues keyed by (what, action); `add` is called once per offending record."""

    def __init__(self) -> None:
        self._issues: dict[tuple[str, str], Issue] = {}

    def add(self, what: str, action: str, where: str | None = None, example: str | None = None, n: int = 1) -> None:
        issue = self._issues.setdefault((what, action), Issue(what, action))
        issue.count += n
        if where and len(issue.where) < MAX_EXAMPLES:
            issue.where.append(where)
        if example is not None and len(issue.examples) < MAX_EXAMPLES:
            issue.examples.append(example)

    def extend(self, other: IssueLog) -> None:
        for issue in other:
            mine = self._issues.setdefault((issue.what, issue.action), Issue(issue.what, issue.action))
            mine.count += issue.count
            mine.where.extend(issue.where[: MAX_EXAMPLES - len(mine.where)])
            mine.examples.extend(issue.examples[: MAX_EXAMPLES - len(mine.examples)])

    def __iter__(self):
        return iter(self._issues.values())

    def __len__(self) -> int:
        return len(self._issues)

    def count(self, what: str) -> int:
        return sum(i.count for i in self._issues.values() if i.what == what)

    def to_list(self) -> list[dict[str, Any]]:
        return [i.to_dict() for i in self._issues.values()]
