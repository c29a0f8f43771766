"""Hand-built corpora for the corpus-builder tests: papers with exact body sizes, edge files."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from sciembed.papers.io import write_parquet
from sciembed.papers.model import ExternalIds, Paper, Reference, Section


def make_paper(
    pid: str,
    field: str | None = "cs",
    venue: str | None = "Venue",
    body_chars: int = 4000,
    sections: int = 2,
    title: str | None = None,
    references: Sequence[Reference] = (),
    external_ids: ExternalIds | None = None,
) -> Paper:
    """A paper whose body has exactly `body_chars` characters spread over `sections` sections."""
    sizes = [body_chars // sections + (1 if i < body_chars % sections else 0) for i in range(sections)]
    return Paper(
        id=pid,
        title=title if title is not None else f"Paper {pid}",
        abstract=f"Abstract of {pid}.",
        sections=tuple(Section(f"{i + 1} Section", "x" * n) for i, n in enumerate(sizes)),
        references=tuple(references),
        venue=venue,
        year=2020,
        fields_of_study=(field,) if field else (),
        external_ids=external_ids or ExternalIds(),
    )


@pytest.fixture
def paper() -> Callable[..., Paper]:
    return make_paper


@pytest.fixture
def write_corpus(tmp_path: Path) -> Callable[..., Path]:
    """Write papers as an ingested corpus directory (papers.parquet + manifest.json)."""

    def write(papers: Sequence[Paper], name: str = "ingested", synthetic: bool = False) -> Path:
        root = tmp_path / name
        root.mkdir()
        write_parquet(papers, root / "papers.parquet")
        (root / "manifest.json").write_text(json.dumps({"schema_version": 1, "synthetic": synthetic}))
        return root

    return write


@pytest.fixture
def write_csv(tmp_path: Path) -> Callable[..., Path]:
    """Write an edge CSV from (citing, cited) tuples or raw lines; header first."""

    def write(rows: Sequence[tuple[str, str] | str], name: str = "edges.csv",
              header: str = "citing_id,cited_id") -> Path:
        path = tmp_path / name
        lines = [header] + [r if isinstance(r, str) else f"{r[0]},{r[1]}" for r in rows]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return path

    return write
