"""A small collection of papers on eight topics that cite each other: paper i cites i - 8 and i - 16 (same topic).

Every paper has an introduction, a long method section and results, and one reference to a book nobody
ingested; the paper-to-paper tests rank its 24 papers.
"""

from __future__ import annotations

from pathlib import Path

from sciembed.papers.io import write_parquet
from sciembed.papers.model import Paper, Reference, Section, SectionRole

TOPICS = ["protein folding", "galaxy lensing", "speech recognition", "graph networks", "machine translation",
          "dependency parsing", "sentiment analysis", "question answering"]


def topic_paper(i: int, cites: list[int]) -> Paper:
    topic = TOPICS[i % len(TOPICS)]
    body = (Section("1 Introduction", f"We study {topic}. It matters for {topic} systems.", SectionRole.INTRODUCTION),
            Section("2 Method", " ".join(f"Our {topic} method step {s} is described." for s in range(40)),
                    SectionRole.METHOD),
            Section("3 Results", f"Results on {topic} data improve.", SectionRole.RESULTS))
    refs = tuple(Reference(title=f"Paper {j} on {TOPICS[j % len(TOPICS)]}") for j in cites)
    refs += (Reference(title="A book nobody ingested"),)
    return Paper(f"P{i:02d}", f"Paper {i} on {topic}", f"This abstract is about {topic}.", body, refs)


def write_topic_collection(root: Path, n: int = 24) -> Path:
    """`n` topic papers as ``root/papers.parquet`` (an ingested collection); returns `root`."""
    root.mkdir(parents=True, exist_ok=True)
    write_parquet([topic_paper(i, [j for j in (i - 8, i - 16) if j >= 0]) for i in range(n)], root / "papers.parquet")
    return root
