"""The offline PDF reader against GROBID's TEI of the same PDFs (``shared/data/formats/pdf`` + ``grobid-tei``).

Both sides go through sciembed's readers and `finalize` (what a user of
``sciembed corpus ingest`` gets): the PDF through the offline reader, the TEI through
the TEI reader. Per paper:

- title exact: the two titles equal after whitespace normalisation (and, less strictly, ignoring case);
- abstract / body token F1: bag-of-words F1 (SQuAD style: the multiset overlap) of lower-cased word
  tokens; GROBID keeps line-end hyphenation ("en- sembles", DESIGN.md field notes), so on *both* sides a
  letter, "- " and a lower-case letter are joined before tokenising — otherwise the reader's repaired
  words would count as errors;
- heading recall / precision: the finalised section headings, matched as normalised strings
  (`roles.normalize_heading`: lower case, numbering and punctuation gone), each GROBID heading at most once;
  ``headings_raw`` compares the readers' headings before `finalize` (which splits merged headings,
  demotes false ones and drops heading-only parents and back matter).

Goals set by issue 22: title exact on both, abstract F1 >= 0.9, heading recall >= 0.8.

    python benchmarks/pdf_reader.py [--data /work/shared/data] [--out benchmarks/results/pdf_reader.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import time
from collections import Counter
from pathlib import Path

from sciembed.papers.model import Paper
from sciembed.papers.readers import FORMATS, Accepted, read_papers
from sciembed.papers.roles import normalize_heading
from sciembed.papers.text_cleaning import clean_inline

_BROKEN = re.compile(r"(?<=[^\W\d_])- (?=[a-z])(?!(?:and|or|to) )")  # not "token- and sentence-level"
_TOKEN = re.compile(r"\w+")
GOALS = {"title_exact": 1.0, "abstract_f1": 0.9, "heading_recall": 0.8}


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(_BROKEN.sub("", text).lower())


def token_f1(predicted: str, reference: str) -> dict[str, float]:
    pred, ref = Counter(tokens(predicted)), Counter(tokens(reference))
    overlap = sum((pred & ref).values())
    precision = overlap / max(sum(pred.values()), 1)
    recall = overlap / max(sum(ref.values()), 1)
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4)}


def heading_scores(predicted: list[str], reference: list[str]) -> dict[str, object]:
    pred = [normalize_heading(h) for h in predicted if h]
    ref = Counter(normalize_heading(h) for h in reference if h)
    matched = sum((Counter(pred) & ref).values())
    return {
        "recall": round(matched / max(sum(ref.values()), 1), 4),
        "precision": round(matched / max(len(pred), 1), 4),
        "grobid": sorted(ref.elements()),
        "offline_only": sorted((Counter(pred) - ref).elements()),
        "missed": sorted((ref - Counter(pred)).elements()),
    }


def _one(path: Path) -> Paper:
    records = list(read_papers(path))
    accepted = [r.paper for r in records if isinstance(r, Accepted)]
    if len(accepted) != 1:
        raise SystemExit(f"{path}: expected one paper, got {records}")
    return accepted[0]


def _raw_headings(path: Path, fmt: str) -> list[str]:
    return [s.heading for r in FORMATS[fmt].read(path, str(path)) if isinstance(r, Accepted) for s in r.paper.sections]


def _body(paper: Paper) -> str:
    return "\n\n".join(s.text for s in paper.sections)


def compare(pdf: Path, tei: Path) -> dict[str, object]:
    started = time.perf_counter()
    offline = _one(pdf)
    seconds = time.perf_counter() - started
    grobid = _one(tei)
    return {
        "paper": pdf.stem,
        "seconds_offline": round(seconds, 2),
        "title_exact": clean_inline(offline.title) == clean_inline(grobid.title),
        "title_exact_ignoring_case": clean_inline(offline.title).lower() == clean_inline(grobid.title).lower(),
        "title": {"offline": offline.title, "grobid": grobid.title},
        "abstract": token_f1(offline.abstract, grobid.abstract),
        "headings": heading_scores([s.heading for s in offline.sections], [s.heading for s in grobid.sections]),
        "headings_raw": heading_scores(_raw_headings(pdf, "pdf"), _raw_headings(tei, "tei")),
        "body": {**token_f1(_body(offline), _body(grobid)), "words_offline": len(tokens(_body(offline))),
                 "words_grobid": len(tokens(_body(grobid)))},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "pdf_reader.json")
    args = parser.parse_args()
    formats = args.data / "formats"
    papers = [compare(pdf, formats / "grobid-tei" / f"{pdf.stem}.tei.xml")
              for pdf in sorted((formats / "pdf").glob("*.pdf"))]
    n = len(papers)
    mean = {
        "title_exact": sum(p["title_exact"] for p in papers) / n,
        "abstract_f1": round(sum(p["abstract"]["f1"] for p in papers) / n, 4),
        "heading_recall": round(sum(p["headings"]["recall"] for p in papers) / n, 4),
        "heading_precision": round(sum(p["headings"]["precision"] for p in papers) / n, 4),
        "heading_recall_raw": round(sum(p["headings_raw"]["recall"] for p in papers) / n, 4),
        "heading_precision_raw": round(sum(p["headings_raw"]["precision"] for p in papers) / n, 4),
        "body_f1": round(sum(p["body"]["f1"] for p in papers) / n, 4),
    }
    result = {
        "what": "offline PDF reader (pdfminer.six layout heuristics) vs GROBID 0.6.1 TEI of the same PDFs",
        "reference": "GROBID TEI read by sciembed's TEI reader; both sides finalised",
        "papers": papers,
        "mean": mean,
        "goals": GOALS,
        "goals_met": {k: mean[k] >= v for k, v in GOALS.items()},
        "machine": {"python": platform.python_version(), "processor": platform.processor() or platform.machine()},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps({"mean": mean, "goals_met": result["goals_met"]}, indent=1))


if __name__ == "__main__":
    main()
