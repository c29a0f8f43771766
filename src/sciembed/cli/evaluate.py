"""`sciembed eval` (models × scenarios on one benchmark) and `sciembed compare` (two runs, paired tests)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

EVAL_HELP = (
    "Evaluate one or more models (and `bm25`) on one benchmark and write a report.\n\n"
    "The benchmark is a built corpus (citation retrieval on one split), a BEIR folder (--beir) or a re-ranking "
    "pools file (--pools). Writes results.json, report.md, PNGs, rankings and qrels into --out, and prints the "
    "models × scenarios table."
)
COMPARE_HELP = (
    "Compare two evaluation runs metric by metric, with paired significance (B − A).\n\n"
    "RUN_A and RUN_B are directories written by `sciembed eval` on the same benchmark."
)


def _fail(message: str) -> None:
    Console(stderr=True, soft_wrap=True).print(f"[red]error:[/red] {escape(message)}", highlight=False)
    raise typer.Exit(2)


def _benchmark(corpus: Path | None, beir: Path | None, pools: Path | None, split: str, seed: int,
               queries: str = "anchors", sections: Path | None = None, section_sample: int | None = None,
               section_title: bool = True):
    from sciembed.evaluation import build_citation_benchmark, load_beir, load_pools

    given = [name for name, value in (("CORPUS", corpus), ("--beir", beir), ("--pools", pools),
                                      ("--section-retrieval", sections)) if value]
    if len(given) != 1:
        raise typer.BadParameter("give exactly one benchmark: CORPUS, --beir DIR, --pools FILE or "
                                 f"--section-retrieval DIR (got {given or 0})")
    if sections:
        from sciembed.evaluation.section_retrieval import build_section_benchmark

        return build_section_benchmark(sections, split=split, sample=section_sample, seed=seed, title=section_title)
    if beir:
        return load_beir(beir, split)
    if pools:
        return load_pools(pools)
    return build_citation_benchmark(corpus, split=split, paper_log_seed=seed, queries=queries)


def eval_command(
    corpus: Path | None = typer.Argument(None, help="Built corpus directory (papers, pairs and splits parquet)."),
    model: list[str] = typer.Option(..., "--model", "-m", help="Model dir, hub id, `minilm` or `bm25`; repeatable."),
    out: Path = typer.Option(..., "--out", "-o", help="Directory for results.json, report.md and plots."),
    split: str = typer.Option("test", help="Corpus split (or BEIR qrels split) to evaluate."),
    scenario: list[str] = typer.Option(["ta_ta", "body_ta", "body_body"], help="ta_ta | body_ta | body_body."),
    body_mode: list[str] = typer.Option(["windowed", "full"], help="windowed | full (body scenarios)."),
    beir: Path | None = typer.Option(None, help="BEIR folder instead of a corpus."),
    pools: Path | None = typer.Option(None, help="Re-ranking pools JSONL instead of a corpus."),
    section_retrieval: Path | None = typer.Option(
        None, help="Same-paper section retrieval over this corpus directory (a built corpus: papers of --split; "
                   "an ingested one: all papers)."),
    section_sample: int | None = typer.Option(None, help="Section retrieval: papers drawn (seed: --paper-log-seed)."),
    section_title: bool = typer.Option(True, help="Section retrieval: section texts start with the paper title."),
    cache_dir: Path | None = typer.Option(None, help="Embedding cache: a re-run encodes only new texts."),
    index_dir: Path | None = typer.Option(None, help="Save candidate indexes here and reuse them next time."),
    k: int = typer.Option(100, help="Candidates retrieved per query."),
    paper_log_seed: int = typer.Option(0, help="Seed of the paper log (which body section each paper is read at)."),
    batch_size: int | None = typer.Option(None, min=1, help="Encoding batch size (default: by GPU memory, 32 on CPU)."),
    backend: str = typer.Option("torch", help="torch | onnx."),
    quantize: bool = typer.Option(False, "--quantize", help="int8 dynamic quantization (ONNX backend)."),
    max_seq_length: int | None = typer.Option(None, help="Override the encoder's token budget."),
    device: str | None = typer.Option(None, help="cpu, cuda, … (default: sentence-transformers' choice)."),
    geometry: bool = typer.Option(True, help="Measure alignment, uniformity and the spectrum (dense models)."),
    rankings: bool = typer.Option(True, help="Write TREC run files of every ranking (runs/<model>/)."),
    queries: str = typer.Option("anchors", help="anchors (the split's ball seeds, S2Full) | linked (every linked "
                                                "paper)."),
    window_tokens: int | None = typer.Option(None, help="Token budget of windowed body views (default: the "
                                                        "encoder's max_seq_length), e.g. 512 with --max-seq-length "
                                                        "8192."),
    pooling: str | None = typer.Option(None, help="cls | mean instead of the model's own pooling (every mode)."),
    metric: str | None = typer.Option(None, "--metric", help="cosine | l2 instead of the model card's (default: "
                                                             "the card's, else cosine; every mode)."),
    ta_join: str | None = typer.Option(None, help="Between title and abstract: '. ' (default) or 'sep' (the "
                                                  "tokenizer's separator)."),
    adapter: str | None = typer.Option(None, help="Adapter hub id or directory (needs sciembed[specter2])."),
    domain_baseline: str | None = typer.Option(None, help="Model the per-domain figure sorts by and subtracts "
                                                          "(default: the first --model)."),
    paper_to_paper: bool = typer.Option(False, "--paper-to-paper", rich_help_panel="Paper-to-paper",
                                        help="Whole papers as queries: CORPUS with directed citations "
                                             "(References / Citations splits of --split), every method."),
    scifullbench: Path | None = typer.Option(None, "--scifullbench", rich_help_panel="Paper-to-paper",
                                             help="SciFullBench release folder (Benchmark/, Target_Corpus/)."),
    p2p_queries: Path | None = typer.Option(None, "--p2p-queries", rich_help_panel="Paper-to-paper",
                                            help="Query paper ids of CORPUS (with --p2p-qrels)."),
    p2p_qrels: Path | None = typer.Option(None, "--p2p-qrels", rich_help_panel="Paper-to-paper",
                                          help="TREC qrels over CORPUS paper ids (with --p2p-queries)."),
    p2p_config: Path | None = typer.Option(None, "--p2p-config", rich_help_panel="Paper-to-paper",
                                           help="configs/prism-*.yaml (methods, top_k, aspects, fusion, …)."),
    llm_queries: Path | None = typer.Option(None, "--llm-queries", rich_help_panel="Paper-to-paper",
                                            help="LLM aspect queries (`sciembed prism queries`) for prism_llm."),
    methods: str | None = typer.Option(None, "--methods", rich_help_panel="Paper-to-paper",
                                       help="Comma-separated methods (default: the config's, all of them)."),
    min_gold: int = typer.Option(1, "--min-gold", min=1, rich_help_panel="Paper-to-paper",
                                 help="Only query papers with at least this many gold papers."),
    fusion: Path | None = typer.Option(None, "--fusion", rich_help_panel="Paper-to-paper",
                                       help="fusion.json for method `fused` (from --tune-fusion)."),
    tune_fusion: bool = typer.Option(False, "--tune-fusion", rich_help_panel="Paper-to-paper",
                                     help="Ingested collection: tune the fusion of the config's fuse_runs on the "
                                          "val query split (ranx), write OUT/fusion.json, report `fused` on --split."),
    p2p_seed: int = typer.Option(0, "--p2p-seed", rich_help_panel="Paper-to-paper",
                                 help="Ingested collection: seed of the val / test query split."),
    val_share: float = typer.Option(0.3, "--val-share", rich_help_panel="Paper-to-paper",
                                    help="Ingested collection: share of query papers in the val split."),
    semantic: Path | None = typer.Option(None, "--semantic", help="Semantic benchmark (SemCSE) built from this "
                                         "corpus of titles + abstracts, instead of citation retrieval."),
    semantic_papers: int | None = typer.Option(None, min=2, help="--semantic: papers sampled (seeded; default 6000), "
                                               "or per config with --semantic-datasets (default 500)."),
    semantic_seed: int = typer.Option(0, help="--semantic: seed of the sample and the clustering split."),
    semantic_queries: Path | None = typer.Option(None, help="--semantic: queries JSONL (sciembed summaries "
                                                 "queries); default: offline TF-IDF terms, labelled."),
    exclude_papers: Path | None = typer.Option(None, help="--semantic: paper ids (file or corpus dir) to leave "
                                               "out, on top of each model's training_papers.txt."),
    semantic_summaries: Path | None = typer.Option(None, help="--semantic: summaries JSONL of held-out papers: "
                                                   "adds SemCSE's generalisation check (summary → TA/title/abstract)."),
    semantic_datasets: str | None = typer.Option(None, help="--semantic on a SciRepEval release root: the paper's "
                                                 "construction, --semantic-papers per listed config (comma-separated)"
                                                 " from its train split; clustering on SciDocs MAG's official split."),
) -> None:
    from sciembed.ioutil.atomic import OutputError, refuse_links

    try:
        refuse_links(out)  # reports are written into --out in place: never through a planted link
    except OutputError as err:
        _fail(str(err))
    if paper_to_paper or scifullbench or p2p_qrels or p2p_queries:
        _eval_paper_to_paper(corpus, model, out, split, scifullbench, p2p_queries, p2p_qrels, p2p_config,
                             llm_queries, methods, min_gold, cache_dir, batch_size, device, rankings,
                             P2PTuning(fusion, tune_fusion, p2p_seed, val_share), backend, quantize,
                             max_seq_length, {"pooling": pooling, "metric": metric})
        return
    from sciembed.corpus.layout import CorpusError
    from sciembed.evaluation import BenchmarkError, evaluate_encoder, write_report
    from sciembed.ioutil.atomic import check_writable
    from sciembed.models import ModelLoadError, load_encoder
    from sciembed.retrieval.dense import IndexLoadError

    console = Console()
    if semantic is not None:
        if corpus or beir or pools:
            raise typer.BadParameter("--semantic CORPUS replaces CORPUS / --beir / --pools; give only one")
        _semantic(semantic, model, out, semantic_papers, semantic_seed, semantic_queries, exclude_papers,
                  batch_size, backend, max_seq_length, cache_dir, device, {"pooling": pooling, "metric": metric},
                  semantic_summaries, semantic_datasets)
        return
    try:
        check_writable(out)  # before any encoding: an unwritable --out fails now, not after all the work
        bench = _benchmark(corpus, beir, pools, split, paper_log_seed, queries, section_retrieval, section_sample,
                           section_title)
        runs = []
        for name in model:
            encoder = name if name.lower() == "bm25" else load_encoder(
                name, backend=backend, quantize=quantize, max_seq_length=max_seq_length, cache_dir=cache_dir,
                device=device, pooling=pooling, metric=metric, ta_join=ta_join, adapter=adapter)
            console.print(f"evaluating [bold]{name}[/bold] on {bench.name}", highlight=False)
            runs.append(evaluate_encoder(encoder, bench, scenario, body_mode, k=k, batch_size=batch_size,
                                         geometry=geometry, index_dir=index_dir, window_tokens=window_tokens))
            del encoder
        report = write_report(runs, bench, out, rankings=rankings, domain_baseline=domain_baseline)
    except (BenchmarkError, CorpusError, IndexLoadError, ModelLoadError, ValueError) as err:
        _fail(str(err))
        return
    console.print(eval_table(runs))
    print_issues(console, bench.issues)
    from sciembed.evaluation.task import key_label

    for run in runs:  # per-run notes, e.g. how many ranked documents were tied
        for key, notes in run.notes.items():
            for note in notes:
                console.print(f"[yellow]{escape(run.model)}, {escape(key_label(key))}: {escape(note['message'])}"
                              "[/yellow]", highlight=False, soft_wrap=True)
    console.print(f"report: {escape(str(report))}", highlight=False, soft_wrap=True)


def print_issues(console: Console, issues, shown: int = 10) -> None:
    """The benchmark's input problems, one line each (what, how many, file:line): none is only in the report."""
    issues = list(issues)
    problems = sum(i.count for i in issues)
    if not problems:
        return
    console.print(f"[yellow]{problems} input problems[/yellow] counted (all listed in the report):", highlight=False)
    for issue in issues[:shown]:
        console.print(f"  [yellow]{escape(issue.message())}[/yellow]", highlight=False, soft_wrap=True)
    if len(issues) > shown:
        console.print(f"  … {len(issues) - shown} more kinds in the report", highlight=False)


@dataclass
class P2PTuning:
    fusion: Path | None
    tune: bool
    seed: int
    val_share: float


def _collection_bench(corpus: Path, split: str, min_gold: int, tuning: P2PTuning):
    from sciembed.evaluation.paper_to_paper import build_collection_paper_to_paper

    return build_collection_paper_to_paper(corpus, split=split, seed=tuning.seed, val_share=tuning.val_share,
                                           min_gold=min_gold)


def _eval_paper_to_paper(corpus, model, out, split, scifullbench, p2p_queries, p2p_qrels, p2p_config, llm_queries,
                         methods, min_gold, cache_dir, batch_size, device, rankings, tuning: P2PTuning,
                         backend="torch", quantize=False, max_seq_length=None, encoder_options=None) -> None:
    from sciembed.corpus.layout import CorpusError
    from sciembed.evaluation import BenchmarkError
    from sciembed.evaluation.p2p_report import write_p2p_report
    from sciembed.evaluation.p2p_run import evaluate_paper_to_paper, load_p2p_config
    from sciembed.models import ModelLoadError, load_encoder
    from sciembed.retrieval.learned_fusion import FusionSpec
    from sciembed.retrieval.prism.queries import QueryFileError

    console = Console()
    try:
        if scifullbench:
            from sciembed.evaluation.scifullbench import load_scifullbench

            bench = load_scifullbench(scifullbench)
        elif p2p_qrels or p2p_queries:
            if not (corpus and p2p_qrels and p2p_queries):
                raise typer.BadParameter("--p2p-qrels and --p2p-queries go together, with a CORPUS")
            from sciembed.evaluation.paper_to_paper import load_paper_to_paper

            bench = load_paper_to_paper(corpus, p2p_queries, p2p_qrels)
        else:
            if corpus is None:
                raise typer.BadParameter("--paper-to-paper needs a CORPUS: built with directed citations, or an "
                                         "ingested collection")
            from sciembed.corpus.layout import CorpusDir

            if CorpusDir(corpus).has_citations():
                from sciembed.evaluation.paper_to_paper import build_paper_to_paper

                bench = build_paper_to_paper(corpus, split=split, min_gold=min_gold)
            else:  # --tune-fusion builds val + test itself
                bench = None if tuning.tune else _collection_bench(corpus, split, min_gold, tuning)
        config = load_p2p_config(p2p_config, queries_file=llm_queries,
                                 methods=[m.strip() for m in methods.split(",") if m.strip()] if methods else None,
                                 batch_size=batch_size)
        if len(model) > 1:
            console.print(f"[yellow]paper-to-paper runs one encoder; using {model[0]}[/yellow]")
        encoder = load_encoder(model[0], cache_dir=cache_dir, device=device, backend=backend, quantize=quantize,
                               max_seq_length=max_seq_length, **(encoder_options or {}))
        if tuning.tune:
            bench, runs, spec = _tuned_p2p(tuning, corpus, split, min_gold, encoder, config, out, console)
        else:
            spec = FusionSpec.load(tuning.fusion) if tuning.fusion is not None else None
            console.print(f"paper-to-paper on {bench.name}: {len(bench.queries)} query papers, "
                          f"{len(bench.candidate_titles())} candidates, methods {', '.join(config.methods)}",
                          highlight=False, soft_wrap=True)
            runs = evaluate_paper_to_paper(bench, encoder, config, fusion=spec)
        report = write_p2p_report(runs, bench, out, extra={"config": config.model_dump(mode="json"),
                                                           "encoder": encoder.name}, rankings=rankings)
    except (BenchmarkError, CorpusError, ModelLoadError, QueryFileError, ValueError) as err:  # FusionError too
        _fail(str(err))
        return
    console.print(p2p_table(runs, bench.splits))
    if spec is not None:
        console.print(f"fused = {spec.label}", highlight=False)
    print_issues(console, bench.issues)
    console.print(f"report: {escape(str(report))}", highlight=False, soft_wrap=True)


def _tuned_p2p(tuning: P2PTuning, corpus, split, min_gold, encoder, config, out, console):
    """--tune-fusion: one ranking pass over the val + test query papers of an ingested collection, the
    fusion tuned on val (saved as OUT/fusion.json), every method reported on test."""
    from sciembed.evaluation.p2p_run import evaluate_with_tuned_fusion
    from sciembed.evaluation.paper_to_paper import query_split_of
    from sciembed.retrieval.learned_fusion import FUSION_FILE

    if tuning.fusion is not None:
        raise typer.BadParameter("give --fusion FILE or --tune-fusion, not both")
    if corpus is None or split != "test":
        raise typer.BadParameter("--tune-fusion needs an ingested collection CORPUS and --split test")
    everything = _collection_bench(corpus, "all", min_gold, tuning)
    ids = sorted(everything.queries)
    val_ids = [q for q in ids if query_split_of(q, tuning.seed, tuning.val_share) == "val"]
    test_ids = [q for q in ids if q not in set(val_ids)]
    console.print(f"paper-to-paper on {everything.name}: {len(val_ids)} val + {len(test_ids)} test query papers, "
                  f"{len(everything.candidate_titles())} candidates; fusion of {', '.join(config.fuse_runs)} tuned "
                  f"on val, methods {', '.join(config.methods)} reported on test", highlight=False, soft_wrap=True)
    runs, spec, test = evaluate_with_tuned_fusion(everything, val_ids, test_ids, encoder, config)
    path = spec.save(Path(out) / FUSION_FILE)
    console.print(f"fusion tuned on val: {spec.label} ({spec.tuned['metric']} {spec.tuned['score']:.4f}) -> {path}",
                  highlight=False, soft_wrap=True)
    return test, runs, spec


def p2p_table(runs, splits) -> Table:
    from sciembed.evaluation.p2p_run import P2P_LABELS

    metrics = ("recall@50", "recall@100", "recall@300", "mrr@50", "ndcg@10")
    table = Table(title="paper-to-paper ×100 (mean ± std over LLM samples where sampled)")
    table.add_column("Method", no_wrap=True)
    for split in splits:
        n = runs[0].counts.get((split, None), {}).get("queries", "–")
        for m in metrics:
            table.add_column(f"{split[:4]}\n{P2P_LABELS[m]}" + (f"\nn={n}" if m == metrics[0] else ""),
                             justify="right")
    for run in runs:
        std = run.config.get("sample_std") or {}
        cells = []
        for split in splits:
            agg = run.aggregates.get((split, None), {})
            for m in metrics:
                value = f"{100 * agg.get(m, float('nan')):.1f}"
                if split in std:
                    value += f"±{100 * std[split][m]:.1f}"
                cells.append(value)
        table.add_row(run.model, *cells)
    return table


def _semantic(corpus: Path, models: list[str], out: Path, n_papers: int | None, seed: int, queries: Path | None,
              exclude: Path | None, batch_size: int | None, backend: str, max_seq_length: int | None,
              cache_dir: Path | None, device: str | None, encoder_options: dict[str, str | None],
              summaries: Path | None = None, datasets: str | None = None) -> None:
    from sciembed.corpus.layout import CorpusError
    from sciembed.evaluation import BenchmarkError
    from sciembed.evaluation.semantic import (
        build_semantic_benchmark,
        evaluate_semantic,
        read_exclusions,
        training_papers,
    )
    from sciembed.evaluation.semantic_report import write_semantic_report
    from sciembed.models import ModelLoadError, load_encoder

    console = Console()
    try:
        if any(m.lower() == "bm25" for m in models):
            raise BenchmarkError("--semantic compares embedding models; bm25 has no vectors")
        excluded = training_papers(models) | (read_exclusions(exclude) if exclude else set())
        if datasets:
            from sciembed.evaluation.semantic import build_scirepeval_semantic_benchmark

            bench = build_scirepeval_semantic_benchmark(
                corpus, [d.strip() for d in datasets.split(",") if d.strip()], per_dataset=n_papers or 500, seed=seed,
                exclude=excluded, queries_file=queries, summaries_file=summaries)
        else:
            bench = build_semantic_benchmark(corpus, n_papers=n_papers or 6000, seed=seed, exclude=excluded,
                                             queries_file=queries, summaries_file=summaries)
        runs = []
        for name in models:
            encoder = load_encoder(name, backend=backend, max_seq_length=max_seq_length, cache_dir=cache_dir,
                                   device=device, **encoder_options)
            console.print(f"evaluating [bold]{escape(name)}[/bold] ({encoder.metric}) on {bench.name}", highlight=False)
            runs.append(evaluate_semantic(encoder, bench, batch_size=batch_size, name=name))
            del encoder
        report = write_semantic_report(runs, bench, out)
    except (BenchmarkError, CorpusError, ModelLoadError, ValueError) as err:
        _fail(str(err))
        return
    console.print(semantic_table(report.parent / "results.json"))
    for issue in bench.issues:
        console.print(f"[yellow]{escape(issue.message())}[/yellow]", highlight=False)
    console.print(f"report: {escape(str(report))}", highlight=False, soft_wrap=True)


def semantic_table(results_path: Path) -> Table:
    import json

    from sciembed.evaluation.semantic import CLUSTERING, TASKS

    results = json.loads(results_path.read_text())
    models = results["models"]
    table = Table(title=f"semantic benchmark — mean rank (lower is better); queries: "
                        f"{results['benchmark']['query_source']}")
    table.add_column("Model")
    tasks = [t for t in TASKS if any(t in m["results"] for m in models)]
    for t in tasks:
        table.add_column(t, justify="right")
    if any(CLUSTERING in m["results"] for m in models):
        tasks.append(CLUSTERING)
        table.add_column("kNN share", justify="right")
    table.add_column("overall", justify="right")
    for m in models:
        cells = [f"{m['results'][t]['mean_rank']:.2f}" if t != CLUSTERING else
                 f"{m['results'][t]['knn_same_label']:.3f}" for t in tasks]
        table.add_row(m["name"], *cells, f"{m['scores']['overall']:.3f}")
    return table


def eval_table(runs) -> Table:
    from sciembed.evaluation.metrics import METRIC_LABELS, PRIMARY
    from sciembed.evaluation.task import key_label

    keys = list(dict.fromkeys(k for run in runs for k in run.keys))
    if any("hit_rate@1" in run.aggregates.get(key, {}) for run in runs for key in keys):
        return _success_table(runs, keys)
    table = Table(title=f"{METRIC_LABELS[PRIMARY]} ×100")
    table.add_column("Model")
    for key in keys:
        table.add_column(f"{key_label(key)}\n(n={runs[0].counts.get(key, {}).get('queries', '–')})", justify="right")
    for run in runs:
        table.add_row(run.model, *[f"{100 * run.primary(key):.1f}" for key in keys])
    return table


def _success_table(runs, keys) -> Table:
    """Same-paper section retrieval: success@1, success@3 and MRR, ×100."""
    from sciembed.evaluation.task import key_label

    metrics = (("hit_rate@1", "S@1"), ("hit_rate@3", "S@3"), ("mrr", "MRR"))
    table = Table(title="×100")
    table.add_column("Model")
    for key in keys:
        n = runs[0].counts.get(key, {}).get("queries", "–")
        for _, label in metrics:
            table.add_column(f"{key_label(key)} {label}\n(n={n})", justify="right")
    for run in runs:
        table.add_row(run.model, *[f"{100 * run.aggregates.get(key, {}).get(m, float('nan')):.1f}"
                                   for key in keys for m, _ in metrics])
    return table


def compare_command(
    run_a: Path = typer.Argument(..., help="Run directory A (the baseline)."),
    run_b: Path = typer.Argument(..., help="Run directory B."),
    model_a: str | None = typer.Option(None, help="Model in A (default: its first)."),
    model_b: str | None = typer.Option(None, help="Model in B (default: its first)."),
    test: str = typer.Option("student", help="student (paired t-test) | fisher (randomization)."),
    metric: list[str] | None = typer.Option(None, help="Metrics to compare (default: all)."),
    max_p: float = typer.Option(0.05, help="Significance level."),
    permutations: int = typer.Option(1000, help="Permutations of the Fisher test."),
    seed: int = typer.Option(42, help="Seed of the Fisher test."),
) -> None:
    from sciembed.evaluation import BenchmarkError, compare_runs
    from sciembed.evaluation.metrics import METRIC_LABELS, METRICS

    try:
        result = compare_runs(run_a, run_b, model_a=model_a, model_b=model_b, test=test,
                              metrics=tuple(metric or METRICS), max_p=max_p, n_permutations=permutations, seed=seed)
    except (BenchmarkError, ValueError) as err:
        _fail(str(err))
        return
    console = Console()
    title = f"{result.model_b} (B) vs {result.model_a} (A), ×100, {result.test} test, * p ≤ {max_p}"
    table = Table(title=title)
    for column in ("Scenario", "Metric", "A", "B", "Δ", "p", "n"):
        table.add_column(column, justify="left" if column in ("Scenario", "Metric") else "right")
    for label, r in result.rows:
        star = " *" if r.significant(max_p) else ""
        colour = "green" if r.delta > 0 and star else "red" if r.delta < 0 and star else "default"
        table.add_row(label, METRIC_LABELS.get(r.metric, r.metric), f"{100 * r.mean_a:.1f}", f"{100 * r.mean_b:.1f}",
                      f"[{colour}]{100 * r.delta:+.1f}{star}[/{colour}]", f"{r.p_value:.3g}", str(r.n))
    console.print(table)
    for label, (n_a, n_b, paired) in result.unpaired.items():
        console.print(f"[yellow]{label}[/yellow]: A scored {n_a} queries, B {n_b}; {paired} paired", highlight=False)
    if result.only_a or result.only_b:
        console.print(f"not compared: only in A {result.only_a or '-'}; only in B {result.only_b or '-'}")


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the app."""
    app.command("eval", help=EVAL_HELP)(eval_command)
    app.command("compare", help=COMPARE_HELP)(compare_command)
