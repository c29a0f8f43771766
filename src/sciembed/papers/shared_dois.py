"""A DOI several papers of one ingest claim is trusted for none of them (`id_policy.SHARED_DOI`): which owns it
cannot be told offline. Run by ingest on the written ``papers.parquet``, rewritten only when some DOI is shared."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from sciembed.papers.io import ParquetPaperWriter, read_parquet
from sciembed.papers.readers.id_policy import SHARED_DOI, distrust

MAX_EXAMPLES = 5


def distrust_shared_dois(path: Path, batch_size: int = 500) -> dict[str, object]:
    """Drop every DOI held by 2+ papers of `path` into their flags; counts and the most shared DOIs."""
    table = pq.read_table(path, columns=["external_ids"])
    dois = pc.struct_field(table["external_ids"], "doi").to_pylist()
    held = Counter(d for d in dois if d)
    shared = {d: n for d, n in held.items() if n > 1}
    out: dict[str, object] = {"dois_shared": len(shared), "papers_affected": sum(shared.values()),
                              "most_shared": dict(Counter(shared).most_common(MAX_EXAMPLES))}
    if not shared:
        return out
    staged = path.with_name(path.name + ".shared-dois")
    with ParquetPaperWriter(staged, batch_size=batch_size) as writer:
        for paper in read_parquet(path):
            writer.write(distrust(paper, SHARED_DOI) if paper.external_ids.doi in shared else paper)
    os.replace(staged, path)
    return out
