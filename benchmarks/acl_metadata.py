"""Counts: ids, DOIs, front matter, hyphens, authors and short venues read from the real ACL GROBID folder.

Reads every TEI file of ``../shared/data/acl-grobid/tei`` with the readers (`read_papers`, as
`corpus ingest` does) and counts authors per paper, affiliations, venues normalised to the
proceedings' short name (from the file's ACL Anthology id, from the header text, and where both
name one, how often they agree), and, for issue 31 items 1 and 5, ids by kind (`ids`), the
external ids kept, the header DOIs not trusted (by reason, the ingest-wide `shared_doi` rule
included), front matter rejected and GROBID line-end hyphens joined (`text`). With
``--baseline-ref REF`` the same files are read by the source tree of REF (``git archive``) in a
child process too, and for every file which of id, title, abstract, sections, references, venue,
year, flags, external ids and acceptance differ is counted, with the baseline's ids by kind.
``--corpus-build`` also ingests the folder and runs `corpus build` with both trees (default funnel, no splits)
and records accepted papers, references resolved (by key) and citations: the ids change, the
citation links must not (beyond the front matter's own references).

    .venv/bin/python benchmarks/acl_metadata.py --baseline-ref main --corpus-build

Writes benchmarks/results/acl_metadata.json (or --out).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_INPUT = ROOT.parent / "shared" / "data" / "acl-grobid" / "tei"
KEPT_FIELDS = ("id", "title", "abstract", "sections", "references", "venue", "year", "flags", "external_ids",
               "authors", "venue_short")

# Run in a child process on a source tree: one line per file, each compared field's digest and the paper id.
DIGEST_SCRIPT = """
import hashlib, json, sys
from pathlib import Path
from sciembed.papers.readers import read_papers
fields = sys.argv[2].split(",")
for path in sorted(Path(sys.argv[1]).iterdir()):
    for record in read_papers(path):
        paper = getattr(record, "paper", None)
        if paper is None:
            print(json.dumps([path.name, "rejected", record.reason, {}]))
            continue
        row = paper.to_dict()
        digest = {k: hashlib.sha256(json.dumps(row[k], sort_keys=True).encode()).hexdigest()[:16] for k in fields}
        print(json.dumps([path.name, "accepted", row["id"], digest]))
"""

# Run in a child process on a source tree: ingest the folder, build the corpus, print the counts as JSON.
BUILD_SCRIPT = """
import json, sys, tempfile
from pathlib import Path
from sciembed.corpus.build import build_corpus
from sciembed.corpus.config import FunnelConfig
from sciembed.papers.ingest import ingest
with tempfile.TemporaryDirectory() as tmp:
    result = ingest([Path(sys.argv[1])], Path(tmp) / "ingested", progress=False)
    built = build_corpus(Path(tmp) / "ingested", Path(tmp) / "built", FunnelConfig(test_size=0, val_size=0))
    manifest = built.manifest
    print(json.dumps({"read": result.read, "accepted": result.accepted, "rejected": dict(result.reasons),
                      "references": manifest["references"], "citation_edges_resolved": built.references.edges,
                      "built": {k: manifest["counts"][k] for k in ("papers_read", "papers", "pairs", "citations")},
                      "funnel": [{k: st.get(k) for k in ("name", "papers", "pairs", "citations")}
                                 for st in manifest["funnel"]]}))
"""


def _child(script: str, src: Path, *args: str) -> str:
    return subprocess.run([sys.executable, "-c", script, *args], check=True, capture_output=True, text=True,
                          env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"}).stdout


def digests(src: Path, folder: Path) -> list[list]:
    return [json.loads(line) for line in _child(DIGEST_SCRIPT, src, str(folder), ",".join(KEPT_FIELDS)).splitlines()]


def _baseline_tree(ref: str, tmp: str) -> Path:
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
    return Path(tmp) / "src"


def id_kind(paper_id: str, file_name: str) -> str:
    """source_id (the file's own stem), doi, or other."""
    if paper_id == file_name.split(".tei")[0]:
        return "source_id"
    return "doi" if paper_id.startswith("10.") and "/" in paper_id else "other"


def compare(ref: str, folder: Path) -> dict:
    """Read `folder` with REF's tree and this one's: per field, how many files differ; the baseline's id kinds."""
    with tempfile.TemporaryDirectory() as tmp:
        before = digests(_baseline_tree(ref, tmp), folder)
    after = digests(ROOT / "src", folder)
    by_field: Counter[str] = Counter()
    acceptance: Counter[str] = Counter()
    for b, a in zip(before, after, strict=True):
        if b[1] != a[1] or (b[1] == "rejected" and b[2] != a[2]):
            was, now = (f"{x[1]}:{x[2] if x[1] == 'rejected' else ''}".rstrip(":") for x in (b, a))
            acceptance[f"{was} -> {now}"] += 1
        elif b[1] == "accepted":
            by_field.update(k for k in KEPT_FIELDS if b[3][k] != a[3][k])
    return {"baseline_ref": ref, "baseline_commit": subprocess.run(
                ["git", "-C", str(ROOT), "rev-parse", ref], check=True, capture_output=True, text=True).stdout.strip(),
            "records": len(after), "accepted_before": sum(b[1] == "accepted" for b in before),
            "accepted_after": sum(a[1] == "accepted" for a in after),
            "baseline_ids_by_kind": dict(Counter(id_kind(b[2], b[0]) for b in before if b[1] == "accepted")),
            "fields_compared": list(KEPT_FIELDS), "accepted_both_differing_by_field": dict(by_field.most_common()),
            "acceptance_changed": dict(acceptance.most_common())}


def corpus_build(ref: str, folder: Path) -> dict:
    """Ingest + `corpus build` (default funnel, no test/val split) with REF's tree and this one's: papers,
    references resolved, citations."""
    with tempfile.TemporaryDirectory() as tmp:
        before = json.loads(_child(BUILD_SCRIPT, _baseline_tree(ref, tmp), str(folder)))
    after = json.loads(_child(BUILD_SCRIPT, ROOT / "src", str(folder)))
    return {"baseline_ref": ref, "before": before, "after": after}


class IdCounts:
    """Issue 31 items 1 and 5 over the records read: ids by kind, external ids, untrusted DOIs, rejections."""

    def __init__(self) -> None:
        self.kinds: Counter[str] = Counter()
        self.external: Counter[str] = Counter()
        self.untrusted: Counter[str] = Counter()
        self.untrusted_examples: dict[str, list[str]] = {}
        self.rejected: Counter[str] = Counter()
        self.front_matter: list[str] = []
        self.dois: Counter[str] = Counter()
        self.read = 0

    def add(self, record, file_name: str) -> None:
        from sciembed.papers.readers.id_policy import untrusted_dois

        self.read += 1
        paper = getattr(record, "paper", None)
        if paper is None:
            self.rejected[record.reason] += 1
            if record.reason == "front_matter":
                self.front_matter.append(file_name.split(".tei")[0])
            return
        self.kinds[id_kind(paper.id, file_name)] += 1
        self.external.update(kind for kind, _ in paper.external_ids.items())
        if paper.external_ids.doi:
            self.dois[paper.external_ids.doi] += 1
        for reason, doi in untrusted_dois(paper):
            self.untrusted[reason] += 1
            self.untrusted_examples.setdefault(reason, []).append(f"{paper.id}: {doi}")

    def to_dict(self, accepted: int) -> dict:
        shared = {d: n for d, n in self.dois.items() if n > 1}  # what ingest's shared_doi rule then drops
        untrusted = {**self.untrusted, **({"shared_doi": sum(shared.values())} if shared else {})}
        kept = {**self.external, "doi": self.external["doi"] - sum(shared.values())}
        return {"read": self.read, "accepted": accepted, "rejected": sum(self.rejected.values()),
                "accepted_plus_rejected_equals_read": accepted + sum(self.rejected.values()) == self.read,
                "rejected_by_reason": dict(self.rejected.most_common()),
                "ids_by_kind": dict(self.kinds.most_common()), "external_ids_kept": dict(sorted(kept.items())),
                "dois_untrusted_by_reason": dict(sorted(untrusted.items())),
                "dois_untrusted_examples": {k: v[:5] for k, v in sorted(self.untrusted_examples.items())},
                "front_matter_rejected": len(self.front_matter), "front_matter_files": self.front_matter}


def counts(folder: Path) -> dict:
    from sciembed.papers.dehyphen import counting
    from sciembed.papers.readers import read_papers
    from sciembed.papers.venues import from_anthology_id, from_text

    per_paper, with_affiliation, authors_total = [], 0, 0
    short, by_stem, by_text, agree, disagree, raw_of_short = Counter(), 0, 0, 0, Counter(), {}
    papers = 0
    ids = IdCounts()
    with counting() as hyphens:  # the generator runs inside: every paper is read in the block, one at a time
        records = ((path, record) for path in sorted(folder.iterdir()) for record in read_papers(path))
        for path, record in records:
            ids.add(record, path.name)
            paper = getattr(record, "paper", None)
            if paper is not None:
                papers += 1
                per_paper.append(len(paper.authors))
                authors_total += len(paper.authors)
                with_affiliation += sum(a.affiliation is not None for a in paper.authors)
                short[paper.venue_short or "(none)"] += 1
                stem = from_anthology_id(path.name.split(".tei")[0])
                text = from_text(paper.venue)
                by_stem += stem is not None
                by_text += text is not None
                if stem and text:
                    if stem == text:
                        agree += 1
                    else:
                        disagree[f"{stem} (file) vs {text} (header)"] += 1
                if paper.venue_short:
                    raw_of_short.setdefault(paper.venue_short, Counter())[paper.venue or "(no venue text)"] += 1
    return {
        "papers": papers,
        "ids": ids.to_dict(papers),
        "text": {"line_end_hyphens": {"joined": hyphens["join"], "hyphen_kept_space_dropped": hyphens["hyphen"],
                                      "left_as_is": hyphens["left"]}},
        "authors": {"total": authors_total, "papers_with_authors": sum(n > 0 for n in per_paper),
                    "papers_without": sum(n == 0 for n in per_paper),
                    "per_paper_mean": round(statistics.mean(per_paper), 2) if per_paper else 0,
                    "per_paper_median": statistics.median(per_paper) if per_paper else 0,
                    "per_paper_max": max(per_paper, default=0),
                    "histogram": dict(sorted(Counter(min(n, 10) for n in per_paper).items())),
                    "with_affiliation": with_affiliation},
        "venues": {"normalised": papers - short["(none)"], "not_normalised": short["(none)"],
                   "short_names": dict(short.most_common()),
                   "named_by_file_anthology_id": by_stem, "named_by_header_text": by_text,
                   "file_and_header_agree": agree, "file_and_header_disagree": dict(disagree.most_common(10)),
                   "raw_texts_per_short_name": {k: dict(v.most_common(3)) for k, v in sorted(raw_of_short.items())}},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--input", type=Path, default=DEFAULT_INPUT)
    parser.add_argument("--baseline-ref", default=None, help="compare ids/text/acceptance with this git ref")
    parser.add_argument("--corpus-build", action="store_true", help="ingest + corpus build with both trees")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "acl_metadata.json")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    result = {"input": "acl-grobid/tei (shared data)", "files": sum(1 for _ in args.input.iterdir()),
              **counts(args.input)}
    if args.baseline_ref:
        result["vs_baseline"] = compare(args.baseline_ref, args.input)
    if args.corpus_build:
        result["corpus_build"] = corpus_build(args.baseline_ref or "main", args.input)
    digest = hashlib.sha256(json.dumps(result, sort_keys=True).encode()).hexdigest()[:12]
    args.out.write_text(json.dumps({**result, "digest": digest}, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps({k: result[k] for k in ("papers", "ids", "text", "authors")}, indent=2))
    print(json.dumps({k: v for k, v in result["venues"].items() if k != "raw_texts_per_short_name"}, indent=2))
    for key in ("vs_baseline", "corpus_build"):
        if key in result:
            print(json.dumps(result[key], indent=2))


if __name__ == "__main__":
    main()
