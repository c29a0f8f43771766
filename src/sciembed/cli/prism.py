"""`sciembed prism search CORPUS --paper ID` (PRISM's fused ranking) and `sciembed prism queries` (generate once,
reuse)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from sciembed.cli.errors import fail, failing
from sciembed.cli.option_groups import llm_options
from sciembed.cli.options import CacheDir, ConfigFile, ModelSpec, OutFile, Seed
from sciembed.llm.cli_options import LLMOptions

PRISM_HELP = (
    "PRISM paper-to-paper retrieval: aspect queries (research question, method, experiment) against ~3,000-token "
    "segments plus the abstract against abstracts, fused by reciprocal rank fusion.\n\n"
    "`sciembed prism search CORPUS --paper ID` ranks the corpus for one of its papers; "
    "`sciembed prism queries CORPUS --out FILE` writes aspect queries (LLM or extractive) to reuse."
)


_BENCHMARK = "Benchmark query papers (the paper-to-paper benchmark `eval run --kind paper_to_paper` builds)"
app = typer.Typer(help=PRISM_HELP, no_args_is_help=True, add_completion=False)


def _errors() -> tuple[type[Exception], ...]:
    from sciembed.corpus.layout import CorpusError
    from sciembed.llm import LLMError
    from sciembed.models import ModelLoadError
    from sciembed.search.prism.queries import QueryFileError

    return CorpusError, LLMError, ModelLoadError, QueryFileError, KeyError, ValueError


@app.command("search")
def search_command(
    ctx: typer.Context,
    corpus: Path = typer.Argument(..., help="Corpus directory (papers.parquet) written by `sciembed corpus ingest`."),
    paper: str = typer.Option(..., "--paper", help="Query paper (in the corpus; never retrieved itself): its id, "
                                                   "any letter case, or an external id (DOI, ACL…)."),
    queries: Path | None = typer.Option(None, "--queries", help="Aspect queries file from `sciembed prism queries`."),
    sample: int = typer.Option(0, "--sample", help="Which LLM sample of the queries file to use."),
    model: ModelSpec = "minilm",
    cache_dir: CacheDir = None,
    k: int = typer.Option(10, "--k", min=1, help="Fused hits shown."),
    top_k: int = typer.Option(300, "--top-k", min=1, help="Depth of every query's list and of the fused ranking."),
    dedupe: bool = typer.Option(False, "--dedupe", help="Count a paper once per aspect list (PRISM counts all)."),
    no_abstract: bool = typer.Option(False, "--no-abstract", help="Leave out the abstract query."),
    segment_tokens: int = typer.Option(3000, "--segment-tokens", min=1, help="Segment size (tokens)."),
    abstract_format: str = typer.Option("ta", "--abstract-format", help="ta | prism ('Title: …\\nAbstract: …')."),
    output: str = typer.Option("table", "--output-format", help="table | json"),
) -> None:
    """PRISM's fused ranking for one paper, with which aspect list found each hit (and at which ranks)."""
    from rich.console import Console
    from rich.table import Table

    from sciembed.search.prism.api import prism_search
    from sciembed.search.prism.queries import read_query_sets

    if output not in ("table", "json"):
        fail(f"--output-format {output!r}: expected table or json")
    with failing(*_errors()):
        from sciembed.models import load_encoder
        from sciembed.search.paper_lookup import corpus_lookup

        paper = corpus_lookup(corpus).resolve(paper)  # any external id / letter case, before the model loads
        encoder = load_encoder(model, cache_dir=cache_dir)
        sets = list(read_query_sets(queries).values()) if queries else None
        result, titles = prism_search(corpus, paper, encoder=encoder, queries=sets, sample=sample, top_k=top_k,
                                      dedupe=dedupe, use_abstract=not no_abstract, segment_tokens=segment_tokens,
                                      abstract_format=abstract_format, show_progress=True)
    if output == "json":
        print(json.dumps({"paper": paper, "title": titles.get(paper, ""), "query_sources": result.sources,
                          "excluded": result.excluded,
                          "hits": [{"rank": r, "paper_id": h.paper_id, "score": h.score,
                                    "title": titles.get(h.paper_id), "found_by": h.found_by}
                                   for r, h in enumerate(result.hits[:k], 1)]},
                         ensure_ascii=False, indent=1))
        return
    console = Console()
    console.print(f"[bold]{paper}[/bold]  {titles.get(paper, '')}", highlight=False, soft_wrap=True)
    sources = ", ".join(f"{a} ({s})" for a, s in result.sources.items())
    console.print(f"queries: {sources}", highlight=False, soft_wrap=True)
    if any(s.startswith("extractive") for s in result.sources.values()):
        console.print("[yellow]extractive queries (sentences of the paper by section role), not PRISM's LLM "
                      "queries; pass --queries from `sciembed prism queries --llm-base-url …`[/yellow]")
    shown = result.hits[:k]
    table = Table(title=f"PRISM fused ranking (RRF k=60, top {top_k} per list, "
                        f"{'one entry' if dedupe else 'every segment hit'} per paper and list)", title_justify="left")
    table.add_column("rank", justify="right", no_wrap=True)
    table.add_column("RRF", justify="right", no_wrap=True)
    table.add_column("paper", no_wrap=True, min_width=max((len(h.paper_id) for h in shown), default=5))
    table.add_column("found by (list: entries, best rank)", overflow="fold")
    table.add_column("title", overflow="fold", ratio=1)
    for rank, hit in enumerate(shown, 1):
        found = hit.summary().replace("research_question", "question")
        table.add_row(str(rank), f"{hit.score:.4f}", hit.paper_id, found, titles.get(hit.paper_id, ""))
    console.print(table)
    if result.excluded[1:]:
        console.print(f"excluded besides the query itself (same normalised title): {', '.join(result.excluded[1:])}")


@app.command("queries")
@llm_options(timeout=600.0)
def queries_command(
    ctx: typer.Context,
    corpus: Path = typer.Argument(..., help="Corpus directory."),
    out: OutFile = ...,
    paper: list[str] = typer.Option([], "--paper", help="Paper id (repeatable; default: every paper)."),
    papers_file: Path | None = typer.Option(None, "--papers", help="File with one paper id per line."),
    samples: int = typer.Option(1, "--samples", min=1, help="LLM samples per paper (repeated runs: mean ± std)."),
    single_agent: bool = typer.Option(False, "--single-agent", help="One call returning JSON with three queries."),
    structured: bool = typer.Option(False, "--structured", help="Ask for JSON-schema structured output."),
    words: int = typer.Option(250, "--words", min=1, help="Word budget of extractive queries."),
    decoding: Path | None = typer.Option(None, "--decoding", help="YAML decoding settings of the agents. Default: "
                                         "PRISM's (temperature 0, 2,000 tokens, repetition penalty 1.2, as "
                                         "configs/decoding-prism-paper.yaml) for one sample; with --samples > 1, "
                                         "temperature 0.7, 512 tokens, seeded (configs/decoding-sampled.yaml)."),
    split: str | None = typer.Option(None, "--split", rich_help_panel=_BENCHMARK,
                                     help="Only the query papers of this paper-to-paper benchmark split, exactly as "
                                          "`sciembed eval run --kind paper_to_paper CORPUS` builds it: val | test | "
                                          "all (val + test, what --set tune_fusion=true ranks) on an ingested "
                                          "collection; a corpus split on a corpus with directed citations."),
    scifullbench: bool = typer.Option(False, "--scifullbench", rich_help_panel=_BENCHMARK,
                                      help="CORPUS is a SciFullBench release (Benchmark/, Target_Corpus/): queries "
                                           "for its query papers (--paper picks some), the agents reading each "
                                           "query's .mmd whole (the citation-removed variant) as PRISM's do. Use "
                                           "the file with `eval run --kind scifullbench ROOT --set "
                                           "methods=prism_llm --set llm_queries=FILE`."),
    venue: list[str] = typer.Option([], "--venue", rich_help_panel=_BENCHMARK,
                                    help="--scifullbench: only this venue folder (repeatable; e.g. ACL, ICLR)."),
    seed: Seed = 0,
    val_share: float = typer.Option(0.3, "--val-share", min=0.0, max=1.0, rich_help_panel=_BENCHMARK,
                                    help="--split: the share of val query papers."),
    min_gold: int = typer.Option(1, "--min-gold", min=1, rich_help_panel=_BENCHMARK,
                                 help="--split: query papers with at least this many gold papers."),
    benchmark_config: ConfigFile = None,
    llm: LLMOptions = LLMOptions(timeout=600.0),
) -> None:
    """Write aspect queries for papers of a corpus: LLM agents when an endpoint or cache is given, else extractive.

    With --split, for the query papers of that paper-to-paper benchmark split: pass the file to `sciembed eval run
    --kind paper_to_paper … --llm-queries FILE` (method prism_llm) with the same --split, --seed, --val-share. With
    --scifullbench, for a SciFullBench release's query papers (the agents read each raw .mmd, as PRISM's do)."""
    from rich.console import Console

    from sciembed.search.prism.api import generate_queries
    from sciembed.search.prism.queries import write_query_sets

    ids = list(paper)
    if papers_file:
        if not papers_file.is_file():
            fail(f"{papers_file}: no such file")
        ids += [line.split()[0] for line in papers_file.read_text().splitlines() if line.strip()]
    if scifullbench and split is not None:
        fail("--scifullbench takes the release's query papers: leave out --split")
    if venue and not scifullbench:
        fail("--venue picks SciFullBench venue folders: give --scifullbench too")
    if split is None:
        stray = [f"--{n.replace('_', '-')}" for n in ("seed", "val_share", "min_gold") if was_given(ctx, n)]
        if stray:
            fail(f"{', '.join(stray)} choose a benchmark's query papers: give --split too")
    elif ids:
        fail("give the papers once: --split (a benchmark's query papers) or --paper / --papers, not both")
    use_llm = llm.requested()
    with failing(*_errors()):
        from sciembed.evaluation.benchmarks.paper_to_paper import query_paper_ids
        from sciembed.evaluation.p2p_run import load_p2p_config
        from sciembed.search.prism.agents import load_sampling

        aspects = load_p2p_config(benchmark_config).aspects if benchmark_config is not None else None
        if split is not None:
            ids = query_paper_ids(corpus, split=split, seed=seed, val_share=val_share, min_gold=min_gold)
            if not ids:
                fail(f"the {split} split of {corpus} has no query papers (seed {seed}, val share {val_share})")
        sampling = load_sampling(decoding) if decoding is not None else None
        options = {"llm": llm.config() if use_llm else None, "samples": samples, "single_agent": single_agent,
                   "structured": structured, "words": words, "sampling": sampling,
                   **({"aspects": aspects} if aspects is not None else {})}
        if scifullbench:
            sets = _scifullbench_queries(corpus, ids, venue, options)
        else:
            sets = generate_queries(corpus, ids or None, **options)
    n = write_query_sets(sets, out)
    sources: dict[str, int] = {}
    for qs in sets:
        for source in qs.sources.values():
            sources[source] = sources.get(source, 0) + 1
    notes = sum(1 for qs in sets if qs.notes)
    Console().print(f"wrote {n} query sets ({len({q.paper_id for q in sets})} papers × {samples if use_llm else 1} "
                    f"sample(s)) -> {out}; query sources: "
                    + ", ".join(f"{s} {c}" for s, c in sorted(sources.items()))
                    + (f"; {notes} with notes (e.g. no body: abstract query only)" if notes else ""),
                    highlight=False, soft_wrap=True)


def _scifullbench_queries(root: Path, ids: list[str], venues: list[str], options: dict) -> list:
    """Query sets for a SciFullBench release's query papers (all, or `ids`), LLM agents reading the raw .mmd."""
    from sciembed.evaluation.scifullbench import load_scifullbench, query_texts
    from sciembed.search.prism.api import paper_queries

    bench = load_scifullbench(root, venues=venues or None)
    missing = [i for i in ids if i not in bench.queries]
    if missing:
        raise KeyError(f"{len(missing)} id(s) are not query papers of {root}: {', '.join(missing[:5])}")
    papers = [bench.queries[i] for i in (ids or sorted(bench.queries))]
    return paper_queries(papers, texts=query_texts(root), **options)


def was_given(ctx: typer.Context, name: str) -> bool:
    """Whether parameter `name` was set on the command line, not left at its default (by the source's name: typer
    vendors its own click, whose `ParameterSource` is not click's)."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT", "PROMPT")


def register(root: typer.Typer) -> None:
    root.add_typer(app, name="prism")
