"""`sciembed summaries`: make the summaries file SemCSE trains on (LLM, extractive, or brought along)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape

from sciembed.cli.errors import fail, failing
from sciembed.cli.option_groups import llm_options
from sciembed.cli.options import CorpusOutDir, OutFile, SamplingSeed, Seed
from sciembed.errors import SciembedInputError
from sciembed.llm.cli_options import LLMOptions

app = typer.Typer(help="Summaries of papers for SemCSE: LLM continuations, extractive pseudo-summaries, SciTLDR.",
                  no_args_is_help=True)


@app.command("generate")
@llm_options()
def generate_command(
    corpus: Path = typer.Argument(..., help="Corpus directory (papers.parquet): titles and abstracts."),
    out: OutFile = ...,
    from_file: Path | None = typer.Option(None, "--from", help="Use summaries made elsewhere (JSONL), checked "
                                          "against the corpus, instead of generating."),
    samples: int = typer.Option(3, min=1, help="Continuations per prompt stem (the paper: 3)."),
    stems: int = typer.Option(5, min=1, max=5, help="How many of the paper's five prompt stems to use."),
    temperature: float = typer.Option(1.0, min=0.0, help="Sampling temperature (recorded with the cache)."),
    max_tokens: int = typer.Option(64, min=1, help="Tokens per continuation before it is cut."),
    top_p: float | None = typer.Option(None, help="Nucleus sampling (sent only when given)."),
    seed: SamplingSeed = 0,
    min_per_paper: int = typer.Option(0, min=0, help="Add extractive pseudo-summaries to papers with fewer "
                                      "summaries than this (labelled extractive-pseudo)."),
    limit: int | None = typer.Option(None, min=1, help="Only the first N papers of the corpus."),
    allow_rejects: bool = typer.Option(False, "--allow-rejects",
                                       help="With --from: keep going past rejected lines (counted)."),
    llm: LLMOptions = LLMOptions(),
) -> None:
    """Summaries by LLM continuation (with --llm-base-url / --llm-cache-only), from a file (--from), or —
    offline, the default — deterministic extractive pseudo-summaries, which are NOT LLM summaries."""
    from sciembed.corpus.layout import CorpusDir, CorpusError
    from sciembed.llm import Sampling
    from sciembed.summaries import read_summaries, write_summaries
    from sciembed.summaries.generate import fill_to_minimum, generate_extractive_summaries, generate_llm_summaries

    console = Console(stderr=True)
    with failing(CorpusError):
        papers = list(CorpusDir(corpus).iter_papers())
    if limit:
        papers = papers[:limit]
    if not papers:
        fail(f"{corpus}: the corpus has no papers")
    report: dict = {"corpus": str(corpus), "papers": len(papers)}
    with failing(SciembedInputError, ValueError):
        if from_file is not None:
            read = read_summaries(from_file, (p.id for p in papers))
            report |= {"mode": "from-file", "from": str(from_file), **read.counts()}
            if read.rejected and not allow_rejects:
                fail(f"{from_file}: {sum(read.rejected.values())} of {read.read} lines rejected: {read.problems()} "
                      "(--allow-rejects keeps the rest)")
            if not read.summaries:
                fail(f"{from_file}: no usable summary among {read.read} lines")
            summaries = read.summaries
        elif llm.requested():
            from sciembed.llm import LLMClient
            from sciembed.summaries.generate import STEMS

            extra = {k: v for k, v in (("top_p", top_p), ("seed", seed)) if v is not None}
            sampling = Sampling(temperature=temperature, max_tokens=max_tokens, extra=extra)
            with LLMClient(llm.config()) as client:
                summaries, counts = generate_llm_summaries(papers, client, sampling, STEMS[:stems], samples)
                report |= {"mode": "llm", "model": llm.model, "sampling": sampling.key_fields(),
                           "llm_calls": client.stats.as_dict(), **counts.as_dict()}
        else:
            console.print("[yellow]no LLM endpoint given: writing deterministic EXTRACTIVE PSEUDO-summaries "
                          "(source 'extractive-pseudo'), not LLM summaries[/yellow]")
            summaries, counts = generate_extractive_summaries(papers, stems, samples)
            report |= {"mode": "extractive-pseudo", **counts.as_dict()}
    if min_per_paper:
        summaries, added = fill_to_minimum(papers, summaries, min_per_paper)
        report["filled_with_extractive_pseudo"] = added
    written = write_summaries(summaries, out)
    by_paper = {s.paper_id for s in summaries}
    report |= {"written": written, "papers_with_summaries": len(by_paper),
               "papers_without_summaries": len(papers) - len(by_paper),
               "by_source": dict(sorted(Counter(s.source for s in summaries).items()))}
    sidecar = out.with_name(out.name + ".report.json")
    sidecar.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    Console().print_json(json.dumps({k: v for k, v in report.items() if k not in ("reject_examples",)}))
    Console().print(f"wrote {written} summaries to {escape(str(out))} (counts: {escape(str(sidecar))})",
                    highlight=False, soft_wrap=True)


@app.command("queries")
@llm_options()
def queries_command(corpus: Path = typer.Argument(..., help="Corpus directory (papers.parquet)."), out: OutFile = ...,
                    temperature: float = typer.Option(0.0, min=0.0, help="Sampling temperature."),
                    max_tokens: int = typer.Option(48, min=1, help="Tokens per query."),
                    limit: int | None = typer.Option(None, min=1, help="Only the first N papers of the corpus."),
                    llm: LLMOptions = LLMOptions()) -> None:
    """One search query per paper for `sciembed eval run --kind semantic` (LLM chat; offline: top TF-IDF terms,
    labelled)."""
    from sciembed.corpus.layout import CorpusDir, CorpusError
    from sciembed.llm import LLMClient, Sampling
    from sciembed.summaries.queries import llm_queries, tfidf_query_records, write_queries

    with failing(CorpusError):
        papers = list(CorpusDir(corpus).iter_papers())[:limit]
    empty = 0
    with failing(SciembedInputError, ValueError):
        if llm.requested():
            with LLMClient(llm.config()) as client:
                records, empty = llm_queries(papers, client, Sampling(temperature=temperature, max_tokens=max_tokens))
        else:
            Console(stderr=True).print("[yellow]no LLM endpoint given: queries are the abstracts' top TF-IDF terms "
                                       "(offline fallback, not LLM queries)[/yellow]")
            records = tfidf_query_records(papers)
    write_queries(records, out)
    skipped = len(papers) - len(records) - empty
    Console().print(f"{len(papers)} papers: {len(records)} queries written to {escape(str(out))}, {empty} empty LLM "
                    f"replies left out, {skipped} papers without title or abstract", highlight=False, soft_wrap=True)


@app.command("scitldr")
def scitldr_command(source: Path = typer.Argument(..., help="SciTLDR JSONL (train.jsonl / dev.jsonl)."),
                    out: CorpusOutDir = ...) -> None:
    """Import SciTLDR: its abstracts as a TA-only corpus, its TLDRs as summaries (scitldr:author / :reviewer)."""
    from sciembed.papers.scitldr import SciTldrError
    from sciembed.summaries.scitldr import import_scitldr

    with failing(SciTldrError):
        manifest = import_scitldr(source, out)
    c = manifest["counts"]
    Console().print(f"read {c['read']} = accepted {c['accepted']} + rejected {c['rejected']}; "
                    f"{manifest['summaries']['written']} TLDR summaries "
                    f"(papers by TLDR count: {manifest['summaries']['papers_by_tldr_count']}) -> {escape(str(out))}",
                    highlight=False, soft_wrap=True)


@app.command("semcse-release")
def semcse_release_command(
    source: Path = typer.Argument(..., help="The SemCSE authors' summaries JSON ({index: {prompt: [summaries]}})."),
    out: CorpusOutDir = ...,
    abstracts: Path = typer.Option(None, "--abstracts", help="The authors' abstracts file, when the summaries "
                                   "file has no 'abstract' per paper."),
) -> None:
    """Import the summaries the SemCSE authors released: their papers as a TA-only corpus, every summary
    (source semcse-release:<prompt>) ready for `train semcse`."""
    from sciembed.summaries.records import SummaryFileError
    from sciembed.summaries.semcse_release import import_semcse_release

    with failing(SummaryFileError):
        manifest = import_semcse_release(source, out, abstracts)
    c, s = manifest["counts"], manifest["summaries"]
    Console().print(f"papers: read {c['read']} = accepted {c['accepted']} + rejected {c['rejected']} "
                    f"{manifest['rejected_by_reason']}; summaries: read {s['read']} = written {s['written']} + "
                    f"rejected {s['rejected']} {s['rejected_by_reason']}; {manifest['papers_without_abstract']} "
                    f"papers without abstract -> {escape(str(out))}", highlight=False, soft_wrap=True)


@app.command("semcse-mix")
def semcse_mix_command(
    root: Path = typer.Argument(..., help="SciRepEval release root (scirepeval/<config>/train.jsonl)."),
    out: CorpusOutDir = ...,
    seed: Seed = 0,
) -> None:
    """SemCSE's training papers: 350k abstracts from SciRepEval's training sets (MeSH, FoS, search, same author,
    highly influential citations 50k each; citation prediction 100k)."""
    from sciembed.papers.scirepeval import SciRepEvalDataError
    from sciembed.summaries.semcse_mix import build_semcse_mix

    with failing(SciRepEvalDataError):
        manifest = build_semcse_mix(root, out, seed=seed)
    for config, c in manifest["semcse_mix"].items():
        Console().print(f"{config}: {c['drawn']:,} of {c['quota']:,} drawn ({c['papers']:,} papers in the split, "
                        f"{c['already_drawn_by_earlier_configs']:,} already drawn)", highlight=False)
    Console().print(f"{manifest['counts']['accepted']:,} papers -> {escape(str(out))}", highlight=False)


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="summaries")
