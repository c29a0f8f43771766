"""Decontamination keys: papers to leave out of training because an evaluation uses them.

A source is a text file (one id, DOI, arXiv id or title per line; ``#`` comments), a sciembed corpus directory or
a BEIR folder. Every value is matched as all four kinds at once after the corpus builder's normalisation
(`sciembed.corpus.keys`), so ``https://doi.org/10.1/X`` and ``arXiv:2101.00001v2`` match.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from sciembed.corpus.keys import install_macros
from sciembed.errors import SciembedInputError
from sciembed.papers.model import Paper

KINDS = ("id", "doi", "arxiv", "title")


class ExcludeError(SciembedInputError, ValueError):
    """An exclude source that cannot be read; the message names the file and line."""


@dataclass
class ExcludeKeys:
    values: dict[str, set[str]] = field(default_factory=lambda: {k: set() for k in KINDS})
    sources: list[tuple[str, int]] = field(default_factory=list)  # (path, values read)

    def __len__(self) -> int:
        return sum(n for _, n in self.sources)

    def add(self, raw: Iterable[str], source: str) -> None:
        raw = [v.strip() for v in raw if v and v.strip()]
        self.sources.append((source, len(raw)))
        self.values["id"].update(raw)
        for kind, keys in zip(("doi", "arxiv", "title"), normalise(raw, raw, raw), strict=True):
            self.values[kind].update(k for k in keys if k)

    def matches(self, papers: list[Paper]) -> list[bool]:
        """Whether each paper matches any key (id, DOI, arXiv id or normalised title)."""
        if not len(self):
            return [False] * len(papers)
        dois, arxivs, titles = normalise([p.external_ids.doi for p in papers], [p.external_ids.arxiv for p in papers],
                                         [p.title for p in papers])
        v = self.values
        return [p.id in v["id"] or (d in v["doi"]) or (a in v["arxiv"]) or (t in v["title"])
                for p, d, a, t in zip(papers, dois, arxivs, titles, strict=True)]


def normalise(dois: list, arxivs: list, titles: list) -> tuple[list, list, list]:
    """DOI, arXiv and title keys of three equally long columns (one DuckDB pass, the corpus builder's macros)."""
    if not titles:
        return [], [], []
    con = duckdb.connect(":memory:")
    try:
        install_macros(con)
        rows = con.execute("SELECT norm_doi(d), norm_arxiv(a), norm_title(t) FROM (SELECT unnest(?) AS d, "
                           "unnest(?) AS a, unnest(?) AS t)", [dois, arxivs, titles]).fetchall()
    finally:
        con.close()
    return [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]


def _jsonl_values(path: Path, keys: tuple[str, ...]) -> list[str]:
    out = []
    with open(path, encoding="utf-8") as handle:
        for n, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ExcludeError(f"{path}:{n}: not valid JSON ({exc.msg})") from None
            out += [str(record[k]) for k in keys if record.get(k)]
    return out


def read_source(path: Path) -> list[str]:
    if path.is_dir():
        if (path / "papers.parquet").exists():
            from sciembed.corpus.layout import CorpusDir

            values: list[str] = []
            for p in CorpusDir(path).iter_papers():
                values += [p.id, p.title, *(v for v in (p.external_ids.doi, p.external_ids.arxiv) if v)]
            return values
        if (path / "corpus.jsonl").exists():
            values = _jsonl_values(path / "corpus.jsonl", ("_id", "title"))
            if (path / "queries.jsonl").exists():
                values += _jsonl_values(path / "queries.jsonl", ("_id", "text"))
            return values
        raise ExcludeError(f"{path}: a directory without papers.parquet or corpus.jsonl; cannot read exclusions")
    if not path.is_file():
        raise ExcludeError(f"{path}: exclude file not found")
    lines = path.read_text(encoding="utf-8").splitlines()
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def load_exclude_keys(paths: Iterable[str | Path]) -> ExcludeKeys:
    keys = ExcludeKeys()
    for path in map(Path, paths):
        keys.add(read_source(path), str(path))
    return keys
