"""`sciembed index` and `sciembed search`: build a paper index from a corpus directory, query it."""

from __future__ import annotations

from pathlib import Path

import typer

VIEW_HELP = "ta: title+abstract; window: a window at every section header; section: every non-empty section"


def _fail(message: str) -> None:
    from rich.console import Console

    Console(stderr=True).print(f"[red]error:[/red] {message}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def _known_errors() -> tuple[type[Exception], ...]:
    from sciembed.corpus.layout import CorpusError
    from sciembed.models import ModelLoadError
    from sciembed.retrieval.dense import IndexLoadError

    return CorpusError, ModelLoadError, IndexLoadError, ValueError


def index(
    corpus: Path = typer.Argument(..., help="Corpus directory (papers.parquet), as written by `sciembed ingest`."),
    out: Path = typer.Option(..., "--out", help="Index directory to write."),
    model: str = typer.Option("minilm", "--model", help="Model path, hub id, or 'minilm' (offline default)."),
    view: str = typer.Option("ta", "--view", help=VIEW_HELP),
    backend: str = typer.Option("torch", "--backend", help="torch | onnx"),
    quantize: bool = typer.Option(False, "--quantize", help="int8 dynamic quantization (ONNX backend)."),
    max_seq_length: int | None = typer.Option(None, "--max-seq-length", help="Token budget (model default)."),
    prefix: str = typer.Option("", "--prefix", help="Text prepended to every input."),
    metric: str = typer.Option("cosine", "--metric", help="cosine | l2"),
    target: int | None = typer.Option(None, "--target", min=1, help="Window words (default 0.7 × max_seq_length)."),
    aggregate: str = typer.Option("max", "--aggregate", help="Paper score over its views: max | mean | sum."),
    batch_size: int = typer.Option(32, "--batch-size", min=1),
    cache_dir: Path | None = typer.Option(None, "--cache-dir", help="Embedding cache and ONNX exports."),
    index_kind: str = typer.Option(
        "flat", "--index", help="flat (exact) | hnsw | ivf-pq | auto (from the number of vectors)."
    ),
    hnsw_m: int = typer.Option(0, "--hnsw-m", min=0, help="HNSW links per node (0: default 32)."),
    ef_search: int = typer.Option(0, "--ef-search", min=0, help="HNSW default search breadth (0: 64)."),
    nlist: int = typer.Option(0, "--nlist", min=0, help="IVF lists (0: 4·√vectors)."),
    pq_m: int = typer.Option(0, "--pq-m", min=0, help="PQ bytes per vector (0: dim/4)."),
    nprobe: int = typer.Option(0, "--nprobe", min=0, help="IVF lists probed by default (0: 32)."),
    shard_papers: int | None = typer.Option(
        None, "--shard-papers", min=1, help="Encode out of core in shards of this many papers (resumable)."
    ),
) -> None:
    """Encode a corpus' papers and write a searchable index (exact, HNSW or IVF-PQ)."""
    from rich.console import Console

    from sciembed.models import load_encoder
    from sciembed.retrieval.multivector import check_aggregate
    from sciembed.retrieval.paper_index import VIEW_KINDS, build_paper_index

    try:
        if view not in VIEW_KINDS:
            raise ValueError(f"--view {view!r}: expected one of {', '.join(VIEW_KINDS)}")
        check_aggregate(aggregate)
        encoder = load_encoder(
            model,
            backend=backend,
            quantize=quantize,
            max_seq_length=max_seq_length,
            prefix=prefix,
            metric=metric,
            cache_dir=cache_dir,
        )
        extra = {"cache_dir": str(cache_dir.resolve()) if cache_dir else None}
        ann = {"hnsw_m": hnsw_m, "ef_search": ef_search, "nlist": nlist, "pq_m": pq_m, "nprobe": nprobe}
        counts = build_paper_index(
            corpus, encoder, view, out, target=target, batch_size=batch_size, aggregate=aggregate, extra=extra,
            index_kind=index_kind, ann=ann, shard_papers=shard_papers,
        )
    except _known_errors() as err:
        _fail(str(err))
    from sciembed.retrieval.dense import read_meta

    built = read_meta(out / "index").get("index", {})
    Console().print(
        f"indexed {counts.indexed + counts.ta_fallback} of {counts.read} papers: {counts.views} {view} views "
        f"in a {built.get('kind', 'flat')} index, "
        f"{counts.ta_fallback} without body indexed by title+abstract, {counts.rejected} rejected (no text) -> {out}",
        highlight=False,
        soft_wrap=True,
    )


def search(
    index_dir: Path = typer.Argument(..., help="Directory written by `sciembed index`."),
    query: str | None = typer.Option(None, "--query", help="Free-text query."),
    paper: str | None = typer.Option(None, "--paper", help="Paper id in the index: find papers like it."),
    k: int = typer.Option(10, "--k", min=1),
    aggregate: str | None = typer.Option(None, "--aggregate", help="max | mean | sum (default: as built)."),
) -> None:
    """Top-k papers for a query text, or for a paper of the index (itself excluded)."""
    from rich.console import Console
    from rich.table import Table

    if (query is None) == (paper is None):
        _fail("give exactly one of --query TEXT or --paper ID")
    try:
        hits, titles, header = _run_search(index_dir, query, paper, k, aggregate)
    except _known_errors() as err:
        _fail(str(err))
    table = Table(title=header, title_justify="left")
    for column, justify in (("rank", "right"), ("score", "right"), ("paper", "left"), ("title", "left")):
        table.add_column(column, justify=justify)
    for rank, (pid, score) in enumerate(hits, start=1):
        table.add_row(str(rank), f"{score:.4f}", pid, titles.get(pid, ""))
    Console().print(table)


def _run_search(
    index_dir: Path, query: str | None, paper: str | None, k: int, aggregate: str | None
) -> tuple[list[tuple[str, float]], dict[str, str], str]:
    from sciembed.retrieval.paper_index import open_paper_index, read_manifest

    if paper is not None:
        loaded = open_paper_index(index_dir, aggregate=aggregate)
        if paper not in loaded.titles:
            raise ValueError(f"--paper {paper!r}: not in {index_dir} ({len(loaded.titles)} papers)")
        return loaded.index.search_paper(paper, k), loaded.titles, f"papers like {paper}: {loaded.titles[paper]}"
    from sciembed.models import load_encoder

    manifest = read_manifest(index_dir)
    settings = manifest["encoder"]
    encoder = load_encoder(
        settings["source"],
        backend=settings["backend"],
        quantize=settings["quantize"],
        max_seq_length=settings["max_seq_length"],
        prefix=settings["prefix"],
        metric=settings["metric"],
        cache_dir=Path(manifest["cache_dir"]) if manifest.get("cache_dir") else None,
    )
    loaded = open_paper_index(index_dir, expected_fingerprint=encoder.fingerprint, aggregate=aggregate)
    hits = loaded.index.search(encoder.encode([query], show_progress=False), k)[0]
    return hits, loaded.titles, f"query: {query}"


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the app."""
    app.command("index")(index)
    app.command("search")(search)
