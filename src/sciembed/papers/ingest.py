"""`sciembed corpus ingest`: raw files in, an ingested corpus directory out (see `corpus/layout.py`).

Papers stream from the readers straight into `papers.parquet` (row groups, bounded memory); every record read is
either accepted or written to `rejects.jsonl` with file, line / element path and reason, so the manifest's counts
always satisfy accepted + rejected = read. The only state that grows with the corpus is the set of paper ids seen
(for duplicate detection).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

import pyarrow.compute as pc
import pyarrow.parquet as pq

from sciembed.errors import SciembedInputError
from sciembed.ioutil.atomic import staged_dir
from sciembed.ioutil.progress import PlainProgress, is_terminal
from sciembed.papers.ingest_report import render_report
from sciembed.papers.ingest_result import MAX_REJECT_DETAILS, REJECTS_FILE, REPORT_FILE, FileCounts, IngestResult
from sciembed.papers.io import PAPERS_FILE, ParquetPaperWriter, read_parquet, write_manifest
from sciembed.papers.metadata import MetadataJoin
from sciembed.papers.paragraph_sections import using_header_rule
from sciembed.papers.readers import FORMATS, Accepted, Record, Rejection, read_papers, walk_inputs
from sciembed.papers.readers.detect import PDF_SUFFIXES, detect_format
from sciembed.papers.readers.id_policy import SHARED_DOI, distrust, flag_kind
from sciembed.papers.readers.limits import ReadLimits, current, using_limits
from sciembed.papers.readers.own import using_extra_keys
from sciembed.papers.readers.pdf import PdfBackend, using_pdf_backend
from sciembed.papers.readers.records import DUPLICATE_ID, writable
from sciembed.papers.text_cleaning import count_words

HEADER_RULES = {"sciembed": True, "s2full": False}  # rule name -> sentence veto on
SYNTHETIC_PREFIX = "synthetic"
ROW_GROUP = 500  # papers per Parquet row group: bounds the writer buffer (~10 MB of full text)
MAX_SHARED_DOI_EXAMPLES = 5


class TooManyErrors(SciembedInputError, RuntimeError):
    """`max_errors` rejections were reached; the run stops and writes no corpus."""


class IngestError(SciembedInputError, RuntimeError):
    """`strict` ingest met a bad record; the message is the rejection's."""

    def __init__(self, rejection: Rejection) -> None:
        super().__init__(str(rejection))
        self.rejection = rejection


def ingest(inputs: list[Path], out: Path, fmt: str = "auto", strict: bool = False, progress: bool = True, *,
           overwrite: bool = False, keep_untitled: bool = False, max_errors: int | None = None,
           max_reject_details: int = MAX_REJECT_DETAILS, limits: ReadLimits | None = None,
           metadata: Path | None = None, pdf: PdfBackend | None = None, header_rule: str = "sciembed",
           ray: str | None = None, extra_keys: tuple[str, ...] = ()) -> IngestResult:
    """Read every input file (directories recursively) into the corpus directory `out`.

    Raises `IngestError` at the first rejection when `strict`, `TooManyErrors` at the `max_errors`-th.
    Written to a staged directory that replaces `out` (only with `overwrite`) at the end, so a failed run
    leaves the previous `out` or none; files inside `out` are never read as input. `rejects.jsonl` holds the
    first `max_reject_details` rejections; the manifest's counts are always exact. `metadata`: Semantic
    Scholar ``papers`` JSONL joined onto every accepted paper (`sciembed.papers.metadata`). `header_rule`:
    headings in paragraph-only inputs (S2ORC 2019, peS2o) by ``sciembed`` (S2Full's rule plus a sentence
    veto) or ``s2full`` (the paper's rule exactly). `ray`: read files in parallel Ray tasks at this address
    ("auto", "local", host:port); the corpus written is the same (`sciembed.papers.parallel_read`).
    """

    join = MetadataJoin.load(metadata) if metadata is not None else None  # bad metadata fails before any work
    if header_rule not in HEADER_RULES:
        raise ValueError(f"unknown header rule {header_rule!r}; expected one of {', '.join(HEADER_RULES)}")
    if fmt != "auto" and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; expected auto or one of {', '.join(FORMATS)}")
    missing = [str(p) for p in inputs if not p.exists()]
    if missing:
        raise FileNotFoundError(f"input not found: {', '.join(missing)}")
    out = Path(out)
    result = IngestResult(out=out, inputs=[writable(str(p)) for p in inputs], fmt=fmt, header_rule=header_rule,
                          max_reject_details=max_reject_details, extra_keys=list(extra_keys))
    cache = pdf.cache_dir if pdf is not None else None
    out_dir, cache_dir = out.resolve(), _resolved(cache) if cache is not None else None  # resolved once, not per file
    files = [(p, data) for p, data in walk_inputs(inputs)  # never our own output
             if not _inside(p, out_dir) and not (cache_dir is not None and _under(p, cache_dir))]
    result.skipped_files = [writable(str(p)) for p, data in files if not data]
    data_files = _unique([p for p, data in files if data])
    with (staged_dir(out, overwrite=overwrite) as stage, using_limits(limits), using_pdf_backend(pdf) as pdf_reader,
          using_header_rule(sentence_veto=HEADER_RULES[header_rule]), using_extra_keys(extra_keys)):
        pdfs = [p for p in data_files if fmt == "pdf" or (fmt == "auto" and p.name.lower().endswith(PDF_SUFFIXES))]
        pdf_reader.start(pdfs)
        _read_all(result, data_files, stage, fmt, strict, progress, keep_untitled, max_errors, join, ray)
        assert result.read == result.accepted + result.rejected
        result.shared_dois = shared = distrust_shared_dois(stage / PAPERS_FILE)
        if shared["papers_affected"]:
            result.coverage["doi"] -= shared["papers_affected"]
            result.flags[flag_kind(f"untrusted_doi:{SHARED_DOI}:")] += shared["papers_affected"]
        if pdfs:
            result.pdf = {"files": len(pdfs), **pdf_reader.stats()}
        manifest = result.manifest()
        if join is not None:
            result.metadata = manifest["metadata"] = join.finish()
        (stage / REPORT_FILE).write_text(render_report(result))
        write_manifest(stage, "ingested", manifest)
    return result


def distrust_shared_dois(path: Path) -> dict[str, object]:
    """A DOI several papers of one ingest claim is trusted for none of them (`id_policy.SHARED_DOI`): which owns it
    cannot be told offline. Drops every such DOI into its papers' flags, rewriting the written `path` only when some
    DOI is shared; returns the counts and the most shared DOIs."""
    table = pq.read_table(path, columns=["external_ids"])
    held = Counter(d for d in pc.struct_field(table["external_ids"], "doi").to_pylist() if d)
    shared = {d: n for d, n in held.items() if n > 1}
    out: dict[str, object] = {"dois_shared": len(shared), "papers_affected": sum(shared.values()),
                              "most_shared": dict(Counter(shared).most_common(MAX_SHARED_DOI_EXAMPLES))}
    if not shared:
        return out
    staged = path.with_name(path.name + ".shared-dois")
    with ParquetPaperWriter(staged, batch_size=ROW_GROUP) as writer:
        for paper in read_parquet(path):
            writer.write(distrust(paper, SHARED_DOI) if paper.external_ids.doi in shared else paper)
    os.replace(staged, path)
    return out


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve()
    except OSError:
        return None


def _inside(path: Path, out: Path) -> bool:
    """Whether `path` lies in the (resolved) output directory or one of its hidden partial siblings."""
    resolved = _resolved(path)
    if resolved is None:
        return False
    parent = out.parent
    return resolved.is_relative_to(out) or (
        resolved.is_relative_to(parent) and resolved.relative_to(parent).parts[0].startswith(f".{out.name}.")
    )


def _read_all(result: IngestResult, data_files: list[Path], stage: Path, fmt: str, strict: bool, progress: bool,
              keep_untitled: bool, max_errors: int | None, join: MetadataJoin | None, ray: str | None) -> None:
    seen: set[str] = set()
    formats = [fmt if fmt != "auto" else detect_format(path) for path in data_files]
    with (
        ParquetPaperWriter(stage / PAPERS_FILE, batch_size=ROW_GROUP) as writer,
        open(stage / REJECTS_FILE, "w", encoding="utf-8") as rejects,
        _Progress(len(data_files), enabled=progress) as bar,
        _record_source(data_files, formats, keep_untitled, ray) as records_of,
    ):
        for path, resolved in zip(data_files, formats, strict=True):
            bar.start_file(path.name)
            counts = result.files[writable(str(path))] = FileCounts(_label(resolved))
            for record in records_of(path, resolved or "auto"):
                counts.read += 1
                result.read += 1
                if isinstance(record, Accepted) and record.paper.id in seen:
                    record = Rejection(record.loc, DUPLICATE_ID, f"duplicate id {record.paper.id!r}: the first "
                                       "record with this id was kept", record.paper.id)
                if isinstance(record, Rejection):
                    counts.rejected += 1
                    _reject(result, record, rejects)
                    if strict:
                        raise IngestError(record)
                    if max_errors is not None and result.rejected >= max_errors:
                        raise TooManyErrors(
                            f"stopped after {result.rejected} rejected records (--max-errors {max_errors}) "
                            f"of {result.read} read; last: {record}"
                        )
                else:
                    counts.accepted += 1
                    if join is not None:
                        record = Accepted(record.loc, join.apply(record.paper))
                    _accept(result, record, writer, seen, counts.format)
                bar.advance_record(result)
            bar.finish_file(result)


def _under(path: Path, folder: Path) -> bool:
    """Whether `path` lies in the (resolved) `folder`."""
    resolved = _resolved(path)
    return resolved is not None and resolved.is_relative_to(folder)


@contextmanager
def _record_source(files: list[Path], formats: list[str | None], keep_untitled: bool, ray: str | None
                   ) -> Iterator[Callable[[Path, str], Iterable[Record]]]:
    """`records_of(path, format)`: read here, or taken from Ray tasks that read the files ahead in parallel."""
    if ray is None:
        yield lambda path, fmt: read_papers(path, fmt, name=str(path), keep_untitled=keep_untitled)
        return
    from sciembed.papers.parallel_read import RayFileReader

    todo = [(path, resolved or "auto") for path, resolved in zip(files, formats, strict=True)]
    with RayFileReader(ray, todo, keep_untitled, current()) as reader:
        yield reader.records


def _unique(paths: list[Path]) -> list[Path]:
    """A file named twice (or also found inside a named directory) is read once, where first met."""
    first: dict[Path, Path] = {}
    for path in paths:
        first.setdefault(path.resolve(), path)
    return list(first.values())


def _label(fmt: str | None) -> str:
    """The format as reports show it; PDFs say which reader read them ("pdf-offline", "pdf-grobid")."""
    if fmt == "pdf":
        from sciembed.papers.readers import pdf

        return f"pdf-{pdf.current().label}"
    return fmt or "unknown"


def _accept(result: IngestResult, record: Accepted, writer: ParquetPaperWriter, seen: set[str], fmt: str) -> None:
    paper = record.paper
    seen.add(paper.id)
    writer.write(paper)
    result.accepted += 1
    result.formats[fmt] += 1
    result.flags.update(flag_kind(f) for f in paper.flags)
    result.coverage.update(name for name, value in (("venue", paper.venue), ("year", paper.year is not None),
                                                     ("field_of_study", paper.fields_of_study or paper.domain),
                                                     ("doi", paper.external_ids.doi)) if value)
    result.sections += len(paper.sections)
    result.body_words += sum(count_words(s.text) for s in paper.sections)
    result.all_synthetic = result.all_synthetic and (paper.source or "").startswith(SYNTHETIC_PREFIX)


def _reject(result: IngestResult, rejection: Rejection, rejects: TextIO) -> None:
    result.rejected += 1
    result.reasons[rejection.reason] += 1
    if result.rejects_written < result.max_reject_details:
        rejects.write(json.dumps(rejection.to_dict(), ensure_ascii=False) + "\n")
        result.rejects_written += 1
    if len(result.examples) < 20:
        result.examples.append(rejection)


class _Progress:
    """A rich progress bar over files, with a running record count (refreshed every 100 records)."""

    def __init__(self, total_files: int, enabled: bool) -> None:
        self.enabled = enabled
        self.total = total_files
        self._bar: Any = None
        self._task: Any = None
        self._plain: PlainProgress | None = None

    def __enter__(self) -> _Progress:
        if self.enabled and not is_terminal():  # redirected to a log: a bar would print nothing
            self._plain = PlainProgress("ingest")
        elif self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._bar = Progress(TextColumn("[bold]ingest[/bold] {task.description}"), BarColumn(),
                                 MofNCompleteColumn(), TextColumn("files · {task.fields[records]}"),
                                 TimeElapsedColumn())
            self._bar.__enter__()
            self._task = self._bar.add_task("", total=self.total, records="0 records")
        return self

    def start_file(self, name: str) -> None:
        if self._bar is not None:
            self._bar.update(self._task, description=name[-40:])

    def advance_record(self, result: IngestResult) -> None:
        if result.read % 100 == 0:
            self._show(result)

    def finish_file(self, result: IngestResult) -> None:
        self._show(result)
        if self._bar is not None:
            self._bar.advance(self._task)

    def _show(self, result: IngestResult) -> None:
        if self._plain is not None:
            self._plain.tick(f"{result.read} records read ({result.accepted} accepted, {result.rejected} rejected)")
        if self._bar is not None:
            self._bar.update(self._task, records=f"{result.read} records ({result.rejected} rejected)")

    def __exit__(self, *exc: object) -> None:
        if self._plain is not None:
            self._plain.done()
        if self._bar is not None:
            self._bar.__exit__(*exc)
