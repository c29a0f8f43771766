"""The paper log: one body section per paper, fixed by a seed and the paper id.

Every model is evaluated on the body text the log names (whole section in
``full`` mode, the window starting at its header in ``windowed`` mode), so
comparisons never depend on which model happened to draw which text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from sciembed.papers.model import Paper
from sciembed.views.window import eligible_sections, seeded_rng

MIN_SECTION_CHARS = 50


@dataclass(frozen=True, slots=True)
class LogEntry:
    paper_id: str
    section: int
    heading: str
    role: str
    seed: int


def choose_section(paper: Paper, seed: int) -> int | None:
    """The logged section: drawn among substantial sections (≥50 characters), else any non-empty."""
    eligible = eligible_sections(paper)
    substantial = [i for i in eligible if len(paper.sections[i].text.strip()) >= MIN_SECTION_CHARS]
    pool = substantial or eligible
    if not pool:
        return None
    return seeded_rng(seed, "paper-log", paper.id).choice(pool)


def build_paper_log(papers: Iterable[Paper], seed: int = 0) -> dict[str, LogEntry]:
    """Entries for every paper with a body (TA-only papers have none)."""
    log: dict[str, LogEntry] = {}
    for paper in papers:
        index = choose_section(paper, seed)
        if index is not None:
            section = paper.sections[index]
            log[paper.id] = LogEntry(paper.id, index, section.heading, section.role.value, seed)
    return log


def write_paper_log(log: dict[str, LogEntry], path: str | Path) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for pid in sorted(log):
            out.write(json.dumps(asdict(log[pid])) + "\n")


def read_paper_log(path: str | Path) -> dict[str, LogEntry]:
    with open(path, encoding="utf-8") as lines:
        entries = (LogEntry(**json.loads(line)) for line in lines if line.strip())
        return {e.paper_id: e for e in entries}
