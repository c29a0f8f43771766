"""Write a synthetic corpus to disk: papers, citation edges, and files that say it is synthetic.

Output is byte-identical for the same seed and options: the gzip header
carries no timestamp, and nothing written depends on the clock.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from sciembed.papers.io import write_jsonl
from sciembed.papers.model import Paper
from sciembed.synth.generate import SOURCE, SyntheticCorpus, SynthOptions
from sciembed.synth.graph import paper_id

PAPERS_FILE = "papers.jsonl.gz"
EDGES_FILE = "edges.csv"
README_FILE = "SYNTHETIC.md"
MANIFEST_FILE = "synth_manifest.json"
BACK_MATTER = ("Acknowledgements", "Acknowledgments", "References", "Appendix")


class _Tally:
    """Counts over the papers as they stream past (what the manifest reports is measured, not planned)."""

    def __init__(self) -> None:
        self.counts: Counter[str] = Counter()
        self.domains: Counter[str] = Counter()

    def add(self, paper: Paper) -> None:
        c = self.counts
        c["papers"] += 1
        c["missing_venue"] += paper.venue is None
        c["missing_field"] += not paper.fields_of_study
        c["no_body"] += not paper.has_body
        c["empty_abstract"] += not paper.abstract.strip()
        back = sum(s.heading.startswith(BACK_MATTER) for s in paper.sections)
        c["body_sections"] += len(paper.sections) - back
        c["back_matter_sections"] += back
        c["body_words"] += sum(len(s.text.split()) for s in paper.sections if not s.heading.startswith(BACK_MATTER))
        c["references_in_corpus"] += sum(r.external_ids.s2 is not None for r in paper.references)
        c["references_outside"] += sum(r.external_ids.s2 is None for r in paper.references)
        self.domains[paper.domain or "(missing)"] += 1


def write_synthetic(out_dir: Path, n_papers: int, seed: int = 0, *, progress: bool = False, **options: object) -> Path:
    """Write `papers.jsonl.gz`, `edges.csv`, `SYNTHETIC.md` and `synth_manifest.json` into `out_dir`.

    Options are `SynthOptions` fields. `progress` shows a rich progress bar.
    Returns `out_dir`.
    """
    opts = SynthOptions(**options)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    corpus = SyntheticCorpus(n_papers, seed, opts)
    tally = _Tally()
    with _progress(progress, n_papers) as advance:
        write_jsonl(_tallied(corpus, tally, advance), out_dir / PAPERS_FILE)
    graph = corpus.graph
    with open(out_dir / EDGES_FILE, "w", encoding="utf-8", newline="\n") as edges:
        edges.write("citing_id,cited_id\n")
        for a, b in zip(graph.citing.tolist(), graph.cited.tolist(), strict=True):
            edges.write(f"{paper_id(a)},{paper_id(b)}\n")
    manifest = _manifest(corpus, tally)
    (out_dir / README_FILE).write_text(_readme(manifest), encoding="utf-8")
    # Written last: its presence says the directory is complete.
    (out_dir / MANIFEST_FILE).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return out_dir


def _tallied(papers: Iterable[Paper], tally: _Tally, advance: Callable[[], None]) -> Iterator[Paper]:
    for paper in papers:
        tally.add(paper)
        advance()
        yield paper


@contextmanager
def _progress(enabled: bool, total: int) -> Iterator[Callable[[], None]]:
    """Yields an `advance()` callable: a rich progress bar when enabled, a no-op otherwise."""
    if not enabled:
        yield lambda: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn

    from sciembed.ioutil.progress import make_progress

    with make_progress(TextColumn("[bold]synthetic papers"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn()) as bar:
        task = bar.add_task("synth", total=total)
        yield lambda: bar.advance(task)


def _manifest(corpus: SyntheticCorpus, tally: _Tally) -> dict[str, Any]:
    graph = corpus.graph
    try:
        package_version = version("sciembed")
    except PackageNotFoundError:  # running from a source tree without installation
        package_version = "unknown"
    counts = {**tally.counts, "edges": graph.n_edges}
    return {"synthetic": True, "generator": SOURCE, "sciembed_version": package_version, "seed": corpus.seed,
            "n_papers": corpus.n_papers, "options": corpus.options.model_dump(), "counts": counts,
            "graph": {"same_topic_share": round(graph.same_topic_share(), 4) if graph.n_edges else None,
                      "max_in_degree": int(graph.in_degree().max()) if graph.n_edges else 0,
                      "years": [int(graph.year.min()), int(graph.year.max())]},
            "domains": dict(sorted(tally.domains.items())),
            "files": [PAPERS_FILE, EDGES_FILE, README_FILE, MANIFEST_FILE]}


def _readme(manifest: dict[str, Any]) -> str:
    c = manifest["counts"]
    domains = "\n".join(f"| {name} | {n} |" for name, n in manifest["domains"].items())
    return f"""# SYNTHETIC CORPUS - not real papers

Every paper in this directory was generated by `sciembed synth` from hand-written
topic vocabularies and sentence templates. Titles, abstracts, sections, venues
("Synthetic Journal of ..."), method names and citations are invented. Do not
cite, quote or mine them as science; use them to exercise and benchmark the
sciembed pipeline.

- generator: `{manifest["generator"]}` (sciembed {manifest["sciembed_version"]}), seed {manifest["seed"]}
- regenerate: `sciembed synth --out DIR --n-papers {manifest["n_papers"]} --seed {manifest["seed"]}`
  (same seed and options give byte-identical files; options are in `{MANIFEST_FILE}`)

## Files

| file | content |
| --- | --- |
| `{PAPERS_FILE}` | one `Paper.to_dict()` per line ({c["papers"]} papers, source `{manifest["generator"]}`) |
| `{EDGES_FILE}` | citation edges `citing_id,cited_id` ({c["edges"]} edges; duplicates possible, rare) |
| `{MANIFEST_FILE}` | seed, options, counts (machine-readable, `"synthetic": true`) |

References inside the corpus carry `external_ids.s2` = the cited paper id and are not
resolved (`paper_id` is empty): resolving them is the corpus builder's job. Back matter
(Acknowledgements, References, Appendix) is present as sections on purpose: ingest
must cut it.

## Counts

| what | n |
| --- | --- |
| papers | {c["papers"]} |
| citation edges | {c["edges"]} |
| references to corpus papers / outside | {c["references_in_corpus"]} / {c["references_outside"]} |
| missing venue | {c["missing_venue"]} |
| missing field of study | {c["missing_field"]} |
| no body | {c["no_body"]} |
| empty abstract | {c["empty_abstract"]} |
| body sections / back-matter sections | {c["body_sections"]} / {c["back_matter_sections"]} |

| domain | papers |
| --- | --- |
{domains}
"""
