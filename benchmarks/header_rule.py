"""Does S2Full header detection need sciembed's sentence-marker veto? Measured on the real samples.

Every heading the structured formats name (unarXive / S2ORC section names, JATS
and TEI section titles) and every body paragraph of ``shared/data`` is run
through `is_header_paragraph` with and without the veto. Written to
``benchmarks/results/header_rule.json``: the real headings only the paper's rule
accepts (the veto misses them) and the body paragraphs only the veto keeps out
(false headings under the paper's rule).

    python benchmarks/header_rule.py [--data /work/shared/data]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from lxml import etree

from sciembed.papers.headings import is_header_paragraph
from sciembed.papers.text_cleaning import clean_inline


def _walk(obj, out: list[tuple[str, str]]) -> None:
    if isinstance(obj, dict):
        if isinstance(obj.get("text"), str):
            out.append(("para", obj["text"]))
        if isinstance(obj.get("section"), str) and obj["section"]:
            out.append(("heading", obj["section"]))
        for value in obj.values():
            _walk(value, out)
    elif isinstance(obj, list):
        for value in obj:
            _walk(value, out)


def collect(data: Path) -> tuple[set[str], set[str]]:
    items: list[tuple[str, str]] = []
    for path in sorted((data / "unarxive-sample").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            _walk(json.loads(line), items)
    for path in sorted((data / "formats" / "s2orc").glob("*.json")):
        _walk(json.loads(path.read_text(encoding="utf-8")), items)
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    for path in sorted([*(data / "formats" / "jats").glob("*"), *(data / "formats" / "grobid-tei").glob("*")]):
        for el in etree.parse(str(path), parser).iter():
            if not isinstance(el.tag, str):
                continue
            name, parent = etree.QName(el).localname, el.getparent()
            text = " ".join("".join(el.itertext()).split())
            if name in ("title", "head") and parent is not None and etree.QName(parent).localname in ("sec", "div"):
                items.append(("heading", text))
            elif name == "p":
                items.append(("para", text))
    headings = {clean_inline(t) for k, t in items if k == "heading"} - {""}
    paragraphs = {clean_inline(t) for k, t in items if k == "para"} - headings - {""}
    return headings, paragraphs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data"))
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "header_rule.json")
    args = parser.parse_args()
    headings, paragraphs = collect(args.data)
    paper = lambda t: is_header_paragraph(t, sentence_veto=False)  # noqa: E731
    veto = lambda t: is_header_paragraph(t, sentence_veto=True)  # noqa: E731
    result = {
        "headings": len(headings),
        "paragraphs": len(paragraphs),
        "headings_accepted": {"paper_rule": sum(map(paper, headings)), "with_veto": sum(map(veto, headings))},
        "paragraphs_taken_for_headings": {"paper_rule": sum(map(paper, paragraphs)),
                                          "with_veto": sum(map(veto, paragraphs))},
        "headings_missed_by_veto": sorted(h for h in headings if paper(h) and not veto(h)),
        "false_headings_prevented_by_veto": sorted(p for p in paragraphs if paper(p) and not veto(p)),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps({k: v for k, v in result.items() if not isinstance(v, list)}, indent=1))
    print(f"missed by the veto: {len(result['headings_missed_by_veto'])}; false headings it prevents: "
          f"{len(result['false_headings_prevented_by_veto'])} -> {args.out}")


if __name__ == "__main__":
    main()
