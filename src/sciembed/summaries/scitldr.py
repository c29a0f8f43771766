"""SciTLDR as a TA-only corpus plus ``summaries.jsonl``: an importer (docs/recipes/semcse.md).

The first TLDR is the author's (``scitldr:author``), the others come from peer reviews (``scitldr:reviewer``);
the reader is the real-text BEIR benchmark's, so both see the same records.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sciembed.papers.io import PAPERS_FILE, write_manifest, write_parquet
from sciembed.papers.model import Paper
from sciembed.papers.scitldr import SciTldrError, read_scitldr
from sciembed.summaries.records import SUMMARIES_FILE, Summary, write_summaries


def import_scitldr(source: str | Path, out: str | Path) -> dict[str, Any]:
    """Write the corpus and its summaries; returns the manifest (read = accepted + rejected)."""
    read = read_scitldr(source)
    if not read.papers:
        raise SciTldrError(f"{source}: no usable SciTLDR record among {read.read} read ({dict(read.rejected)})")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    papers = [Paper(id=p.paper_id, title=p.title, abstract=p.abstract, source="scitldr") for p in read.papers]
    summaries = [Summary(p.paper_id, " ".join(t.split()), "scitldr:author" if i == 0 else "scitldr:reviewer")
                 for p in read.papers for i, t in enumerate(p.tldrs) if t.strip()]
    write_parquet(papers, out / PAPERS_FILE)
    n_summaries = write_summaries(summaries, out / SUMMARIES_FILE)
    per_paper = [sum(1 for t in p.tldrs if t.strip()) for p in read.papers]
    return write_manifest(out, "ingested", {
        "synthetic": False, "inputs": [str(Path(source).resolve())], "format": "scitldr",
        "counts": {"read": read.read, "accepted": len(papers), "rejected": sum(read.rejected.values())},
        "rejected_by_reason": dict(read.rejected), "reject_examples": read.examples,
        "summaries": {"file": SUMMARIES_FILE, "written": n_summaries,
                      "papers_by_tldr_count": {str(k): per_paper.count(k) for k in sorted(set(per_paper))}},
        "license": "SciTLDR, Apache-2.0 (Cachola et al., 2020)",
    })
