"""The SemCSE authors' released LLM summaries as a corpus plus summaries (an importer).

The layout read is the one the same authors released with their summaries in inas-argumentation/SemCSE-Multi
(``data/mistral_*_summaries.json``, written by its ``generate_aspect_specific_summaries.py``; the SemCSE
repository's own data is not public)::

    {"<paper index>": {"abstract": "…", "<prompt key>": ["summary", "summary", …], …}, …}
    {"labeled": {"<paper index>": {…}}, "unlabeled": {"<paper index>": {…}}}      (split level first)

Every list of strings under a paper is one prompt's summaries; summaries containing "not applicable" are
dropped, as the authors' training code does. Abstracts come from the entry's ``"abstract"`` or a separate
abstracts file: ``[{"index", "formatted_text"}]`` or ``{split: {index: {"index", "prediction_text"}}}``.

Writes ``papers.parquet`` + ``manifest.json`` (a TA-only corpus; papers ``<split>/<index>`` or ``<index>``) and
``summaries.jsonl`` (source ``semcse-release:<prompt key>``); read = accepted + rejected for papers and summaries.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from sciembed.ioutil.atomic import write_text_atomic
from sciembed.papers.io import MANIFEST_FILE, PAPERS_FILE, SCHEMA_VERSION, write_parquet
from sciembed.papers.model import Paper
from sciembed.summaries.records import SUMMARIES_FILE, Summary, SummaryFileError, write_summaries

SOURCE_PREFIX = "semcse-release:"
NOT_APPLICABLE = "not applicable"  # the authors' training code drops these summaries
ABSTRACT_KEYS = ("abstract", "formatted_text", "prediction_text")
MAX_BYTES = 4 << 30  # the released 350k file is far below; a larger file is refused before it is read


def _load_json(path: Path) -> Any:
    if not path.is_file():
        raise SummaryFileError(f"{path}: no such file")
    size = path.stat().st_size
    if size > MAX_BYTES:
        raise SummaryFileError(f"{path}: {size:,} bytes, above the {MAX_BYTES:,}-byte limit of this importer")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as err:
        raise SummaryFileError(f"{path}: not UTF-8 ({err})") from err
    except json.JSONDecodeError as err:
        raise SummaryFileError(f"{path}: not JSON: {err.msg} at line {err.lineno}, column {err.colno}") from err


def _is_paper_entry(value: Any) -> bool:
    return isinstance(value, dict) and any(isinstance(v, list) or k in ABSTRACT_KEYS for k, v in value.items())


def paper_entries(data: Any, path: Path) -> list[tuple[str, Any]]:
    """(paper id, entry) in file order: ``<index>`` at the top level, ``<split>/<index>`` under a split level."""
    if not isinstance(data, dict):
        raise SummaryFileError(f"{path}: expected a JSON object keyed by paper index (or by split), got "
                               f"{type(data).__name__}")
    split_level = bool(data) and all(isinstance(v, dict) and not _is_paper_entry(v) for v in data.values())
    if not split_level:
        return [(str(k), v) for k, v in data.items()]
    return [(f"{split}/{k}", v) for split, entries in data.items() for k, v in entries.items()]


def read_abstracts(path: Path) -> dict[str, str]:
    """index -> abstract text from the authors' abstracts files (list of records, or split -> index -> record);
    keyed like `paper_entries` (``<split>/<index>`` under a split level)."""
    data = _load_json(path)
    out: dict[str, str] = {}

    def text_of(record: Any) -> str | None:
        if not isinstance(record, dict):
            return None
        return next((record[k] for k in ABSTRACT_KEYS if isinstance(record.get(k), str) and record[k].strip()), None)

    if isinstance(data, list):
        for record in data:
            text = text_of(record)
            if text is not None and record.get("index") is not None:
                out[str(record["index"])] = text
        return out
    for key, value in paper_entries(data, path):
        text = text_of(value)
        if text is not None:  # the summaries are keyed by the record's "index" where it has one
            index = value.get("index")
            if index is not None:
                key = f"{key.rsplit('/', 1)[0]}/{index}" if "/" in key else str(index)
            out[key] = text
    return out


def import_semcse_release(source: str | Path, out: str | Path, abstracts: str | Path | None = None) -> dict[str, Any]:
    """Write the corpus and its summaries; returns the manifest."""
    source = Path(source)
    entries = paper_entries(_load_json(source), source)
    external = read_abstracts(Path(abstracts)) if abstracts else {}
    papers: list[Paper] = []
    summaries: list[Summary] = []
    rejected_papers: Counter[str] = Counter()
    rejected_summaries: Counter[str] = Counter()
    examples: dict[str, str] = {}
    summaries_read = 0
    by_prompt: Counter[str] = Counter()
    without_abstract = 0

    def reject(counter: Counter[str], reason: str, where: str) -> None:
        counter[reason] += 1
        examples.setdefault(reason, where)

    for pid, entry in entries:
        if not isinstance(entry, dict):
            reject(rejected_papers, "paper entry is not a JSON object", pid)
            continue
        kept: list[Summary] = []
        for key, value in entry.items():
            if not isinstance(value, list):
                continue
            for i, text in enumerate(value):
                summaries_read += 1
                where = f"{pid}/{key}[{i}]"
                if not isinstance(text, str):
                    reject(rejected_summaries, "summary is not a string", where)
                elif not text.strip():
                    reject(rejected_summaries, "empty summary", where)
                elif NOT_APPLICABLE in text.lower():
                    reject(rejected_summaries, "'not applicable' (dropped as the authors' training does)", where)
                else:
                    kept.append(Summary(pid, " ".join(text.split()), f"{SOURCE_PREFIX}{key}", {"prompt": key}))
                    by_prompt[key] += 1
        if not kept:
            reject(rejected_papers, "no usable summary", pid)
            continue
        abstract = entry.get("abstract") if isinstance(entry.get("abstract"), str) else None
        abstract = abstract or external.get(pid) or external.get(pid.rsplit("/", 1)[-1]) or ""
        without_abstract += not abstract.strip()
        title = entry.get("title") if isinstance(entry.get("title"), str) else ""
        papers.append(Paper(id=pid, title=title, abstract=abstract, source=f"semcse-release:{source.name}"))
        summaries.extend(kept)
    if not papers:
        raise SummaryFileError(f"{source}: no paper with a usable summary among {len(entries)} entries "
                               f"({dict(rejected_papers)}; summaries: {dict(rejected_summaries)})")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    write_parquet(papers, out / PAPERS_FILE)
    written = write_summaries(summaries, out / SUMMARIES_FILE)
    manifest = {
        "schema_version": SCHEMA_VERSION, "kind": "ingested", "synthetic": False,
        "inputs": [str(source.resolve())] + ([str(Path(abstracts).resolve())] if abstracts else []),
        "format": "semcse-release",
        "counts": {"read": len(entries), "accepted": len(papers), "rejected": sum(rejected_papers.values())},
        "rejected_by_reason": dict(rejected_papers), "reject_examples": examples,
        "papers_without_abstract": without_abstract,
        "summaries": {"file": SUMMARIES_FILE, "read": summaries_read, "written": written,
                      "rejected": sum(rejected_summaries.values()),
                      "rejected_by_reason": dict(rejected_summaries), "by_prompt": dict(sorted(by_prompt.items()))},
        "provenance": "LLM summaries released by the SemCSE authors (Brinner & Zarrieß)"}
    write_text_atomic(out / MANIFEST_FILE, json.dumps(manifest, indent=2) + "\n")
    return manifest
