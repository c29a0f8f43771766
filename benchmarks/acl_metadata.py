"""Counts: authors and short venues read from the real ACL GROBID folder, and proof that nothing else moved.

Reads every TEI file of ``../shared/data/acl-grobid/tei`` with the readers (`read_papers`, as
`corpus ingest` does) and counts authors per paper, affiliations, and venues normalised to the
proceedings' short name (from the file's ACL Anthology id, from the header text, and where both
name one, how often they agree). With ``--baseline-ref REF`` the same files are read by the
source tree of REF (``git archive``) in a child process too, and every paper's id, title,
abstract, sections, references, venue, year, flags and which files were accepted are compared:
issue 31 item 5 adds metadata and must change none of them.

    .venv/bin/python benchmarks/acl_metadata.py --baseline-ref main

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
KEPT_FIELDS = ("id", "title", "abstract", "sections", "references", "venue", "year", "flags", "external_ids")

# Run in a child process on a source tree: one line per file, the digest of what must not change.
DIGEST_SCRIPT = """
import hashlib, json, sys
from pathlib import Path
from sciembed.papers.readers import read_papers
fields = sys.argv[2].split(",")
for path in sorted(Path(sys.argv[1]).iterdir()):
    for record in read_papers(path):
        paper = getattr(record, "paper", None)
        if paper is None:
            print(json.dumps([path.name, "rejected", record.reason]))
            continue
        row = paper.to_dict()
        kept = json.dumps({k: row[k] for k in fields}, sort_keys=True, ensure_ascii=False)
        print(json.dumps([path.name, "accepted", hashlib.sha256(kept.encode()).hexdigest()]))
"""


def digests(src: Path, folder: Path) -> list[list[str]]:
    out = subprocess.run([sys.executable, "-c", DIGEST_SCRIPT, str(folder), ",".join(KEPT_FIELDS)], check=True,
                         capture_output=True, text=True, env={"PYTHONPATH": str(src), "PATH": "/usr/bin:/bin"})
    return [json.loads(line) for line in out.stdout.splitlines()]


def compare(ref: str, folder: Path) -> dict:
    """Read `folder` with REF's tree and this one's; how many files differ in what item 5 must not change."""
    with tempfile.TemporaryDirectory() as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref, "src"], check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", tmp], input=archive.stdout, check=True)
        before = digests(Path(tmp) / "src", folder)
    after = digests(ROOT / "src", folder)
    differing = [b[0] for b, a in zip(before, after, strict=True) if b != a]
    return {"baseline_ref": ref, "baseline_commit": subprocess.run(
                ["git", "-C", str(ROOT), "rev-parse", ref], check=True, capture_output=True, text=True).stdout.strip(),
            "records": len(after), "accepted": sum(a[1] == "accepted" for a in after),
            "fields_compared": list(KEPT_FIELDS), "records_differing": len(differing),
            "first_differing": differing[:10], "identical": not differing and len(before) == len(after)}


def counts(folder: Path) -> dict:
    from sciembed.papers.readers import read_papers
    from sciembed.papers.venues import from_anthology_id, from_text

    per_paper, with_affiliation, authors_total = [], 0, 0
    short, by_stem, by_text, agree, disagree, raw_of_short = Counter(), 0, 0, 0, Counter(), {}
    papers = 0
    for path in sorted(folder.iterdir()):
        for record in read_papers(path):
            paper = getattr(record, "paper", None)
            if paper is None:
                continue
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
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "acl_metadata.json")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    result = {"input": "acl-grobid/tei (shared data)", "files": sum(1 for _ in args.input.iterdir()),
              **counts(args.input)}
    if args.baseline_ref:
        result["unchanged_vs_baseline"] = compare(args.baseline_ref, args.input)
    digest = hashlib.sha256(json.dumps(result, sort_keys=True).encode()).hexdigest()[:12]
    args.out.write_text(json.dumps({**result, "digest": digest}, indent=2, ensure_ascii=False) + "\n")
    print(json.dumps({k: result[k] for k in ("papers", "authors")}, indent=2))
    print(json.dumps({k: v for k, v in result["venues"].items() if k != "raw_texts_per_short_name"}, indent=2))
    if "unchanged_vs_baseline" in result:
        print(json.dumps(result["unchanged_vs_baseline"], indent=2))


if __name__ == "__main__":
    main()
