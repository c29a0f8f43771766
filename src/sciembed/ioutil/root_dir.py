"""A directory a stage reads or writes, known by its root (`corpus.layout.CorpusDir`, `training.rundir.RunDir`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class RootDir:
    """A frozen handle on the directory `root` (a str becomes a `Path`); a subclass adds its files as properties."""

    root: Path

    def __init__(self, root: str | Path) -> None:
        object.__setattr__(self, "root", Path(root))
