"""`sciembed index build` and `sciembed index search`: build a paper index from a corpus directory, query it."""

from __future__ import annotations

from pathlib import Path

import typer

from sciembed.cli import encoder_options
from sciembed.cli.deprecation import note
from sciembed.cli.errors import fail, known_errors
from sciembed.cli.groups import index_app
from sciembed.cli.options import BatchSize, CacheDir, IndexModelSpec, IndexOutDir, Overwrite, ResultsOutFile
from sciembed.llm.cli_options import (
    EmbeddingsApiKeyEnv,
    EmbeddingsBaseUrl,
    EmbeddingsDimensions,
    EmbeddingsRetries,
    EmbeddingsTimeout,
    embeddings_options,
)

VIEW_HELP = ("default (no --view): the full-text index, BM25 over full text + dense title+abstract + dense "
             "section pieces in one directory, searched with the measured fusion; ta: title+abstract; window: a "
             "window at every section header; section: every non-empty section, "
             "split into pieces the encoder reads whole; ta+section: both (for --method late); chunk: CoSAEmb "
             "chunks of the encoder's budget; segment: PRISM's ~3,000-token segments; fulltext: the whole paper "
             "as one view (BM25)")
FORMATS = ("table", "json", "trec")


def index(
    corpus: Path = typer.Argument(..., help="Corpus directory (papers.parquet), as written by "
                                  "`sciembed corpus ingest`, or "
                                  "a vectors directory written by `sciembed encode` (its vectors are indexed)."),
    out: IndexOutDir = ...,
    model: IndexModelSpec = "minilm",
    view: str | None = typer.Option(None, "--view", help=VIEW_HELP + " (--model bm25: default ta; from vectors: "
                                    "their only kind)"),
    backend: str = encoder_options.INDEX_BACKEND,
    quantize: bool = encoder_options.QUANTIZE,
    max_seq_length: int | None = encoder_options.MAX_SEQ_LENGTH,
    prefix: str = encoder_options.PREFIX,
    metric: str | None = encoder_options.METRIC,
    target: int | None = encoder_options.TARGET,
    aggregate: str = typer.Option("max", "--aggregate", help="Paper score over its views: max | mean | sum."),
    batch_size: BatchSize = None,
    cache_dir: CacheDir = None,
    segment_tokens: int = typer.Option(3000, "--segment-tokens", min=1, help="Segment size of --view segment."),
    index_kind: str = typer.Option(
        "flat", "--index", help="flat (exact) | hnsw | ivf-pq | auto (from the number of vectors)."
    ),
    hnsw_m: int = typer.Option(0, "--hnsw-m", min=0, help="HNSW links per node (0: default 32)."),
    ef_search: int = typer.Option(0, "--ef-search", min=0, help="HNSW default search breadth (0: 64)."),
    nlist: int = typer.Option(0, "--nlist", min=0, help="IVF lists (0: 4·√vectors)."),
    pq_m: int = typer.Option(0, "--pq-m", min=0, help="PQ bytes per vector (0: dim/4)."),
    nprobe: int = typer.Option(0, "--nprobe", min=0, help="IVF lists probed by default (0: 32)."),
    ef_construction: int = typer.Option(0, "--ef-construction", min=0, help="HNSW build breadth (0: 80)."),
    hnsw_storage: str = typer.Option("", "--hnsw-storage", help="HNSW vectors: flat | sq8 (default flat)."),
    refine: str = typer.Option(
        "", "--refine", help="IVF-PQ exact re-rank over a second copy of the vectors: none | flat | sq8 "
        "(default: sq8 up to 20M vectors, none beyond)."
    ),
    refine_k_factor: int = typer.Option(0, "--refine-k-factor", min=0, help="Candidates re-ranked = this × k (0: 8)."),
    shard_papers: int | None = typer.Option(
        None, "--shard-papers", min=1, help="Encode out of core in shards of this many papers (resumable)."
    ),
    trust_remote_code: bool = typer.Option(
        False, "--trust-remote-code", help="Run Python code shipped in the model directory (recorded in the index)."
    ),
    embeddings_base_url: EmbeddingsBaseUrl = None,
    embeddings_api_key_env: EmbeddingsApiKeyEnv = None,
    embeddings_dimensions: EmbeddingsDimensions = None,
    embeddings_timeout: EmbeddingsTimeout = None,
    embeddings_retries: EmbeddingsRetries = None,
    overwrite: Overwrite = False,
) -> None:
    """Encode a corpus' papers and write a searchable index: by default the full-text one (BM25 full text + dense
    title+abstract + dense section pieces, one directory); `--view ta` etc.: one view, exact, HNSW or IVF-PQ
    (`--model bm25`: BM25).

    An existing index in --out is refused without --overwrite; with it the new index replaces the old one whole
    when it is finished (no file of the old one is left).
    """
    from rich.console import Console

    from sciembed.encode.store import is_vectors_dir
    from sciembed.models import load_encoder
    from sciembed.retrieval.index_out import check_index_out, index_out_dir
    from sciembed.retrieval.multivector import check_aggregate
    from sciembed.retrieval.paper_index import build_paper_index
    from sciembed.views.kinds import IndexView, index_view

    if is_vectors_dir(corpus):
        _index_vectors(corpus, out, view, index_kind, aggregate, {
            "hnsw_m": hnsw_m, "ef_search": ef_search, "nlist": nlist, "pq_m": pq_m, "nprobe": nprobe,
            "ef_construction": ef_construction, "hnsw_storage": hnsw_storage, "refine": refine,
            "refine_k_factor": refine_k_factor}, overwrite)
        return
    if view is None and model.lower() != "bm25":
        given = [flag for flag, value in (("--shard-papers", shard_papers), ("--index", index_kind != "flat"),
                                          ("--aggregate", aggregate != "max"), ("--target", target)) if value]
        if given:
            fail(f"{', '.join(given)}: an option of one view; the full-text default (no --view) builds its own "
                 "parts (add --view ta, section, … to use it)")
        endpoint = embeddings_options(embeddings_base_url, embeddings_api_key_env, embeddings_dimensions,
                                      embeddings_timeout, embeddings_retries)
        _index_fulltext(corpus, out, model, backend, quantize, max_seq_length, prefix, metric, batch_size, cache_dir,
                        trust_remote_code, overwrite, endpoint)
        return
    view = view or IndexView.TA
    backend, quantize = encoder_options.resolve_backend(backend, quantize, model)
    try:
        index_view(view)
        check_aggregate(aggregate)
        check_index_out(out, overwrite=overwrite, resumable=bool(shard_papers) and model.lower() != "bm25")
        if model.lower() == "bm25":
            from sciembed.retrieval.bm25_paper import build_bm25_index

            with index_out_dir(out, overwrite=overwrite) as stage:
                counts = build_bm25_index(corpus, view, stage, target=target or 358, segment_tokens=segment_tokens)
            Console().print(f"indexed {counts.indexed + counts.ta_fallback} of {counts.read} papers with BM25: "
                            f"{counts.views} {view} views, {counts.ta_fallback} without body indexed by "
                            f"title+abstract, {counts.rejected} rejected (no text) -> {out}",
                            highlight=False, soft_wrap=True)
            return
        encoder = load_encoder(
            model,
            backend=backend,
            quantize=quantize,
            max_seq_length=max_seq_length,
            prefix=prefix,
            metric=metric,
            cache_dir=cache_dir,
            trust_remote_code=trust_remote_code,
            **embeddings_options(embeddings_base_url, embeddings_api_key_env, embeddings_dimensions,
                                 embeddings_timeout, embeddings_retries),
        )
        extra = {"cache_dir": str(cache_dir.resolve()) if cache_dir else None}
        ann = {"hnsw_m": hnsw_m, "ef_search": ef_search, "nlist": nlist, "pq_m": pq_m, "nprobe": nprobe,
               "ef_construction": ef_construction, "hnsw_storage": hnsw_storage, "refine": refine,
               "refine_k_factor": refine_k_factor}
        with index_out_dir(out, overwrite=overwrite, resumable=bool(shard_papers)) as stage:
            counts = build_paper_index(
                corpus, encoder, view, stage, target=target, batch_size=batch_size, aggregate=aggregate, extra=extra,
                segment_tokens=segment_tokens, index_kind=index_kind, ann=ann, shard_papers=shard_papers,
            )
    except known_errors() as err:
        fail(str(err))
    from sciembed.retrieval.dense import read_meta
    from sciembed.retrieval.paper_index import read_manifest

    built = read_meta(out / "index").get("index", {})
    console = Console()
    console.print(
        f"indexed {counts.indexed + counts.ta_fallback} of {counts.read} papers: {counts.views} {view} views "
        f"in a {built.get('kind', 'flat')} index, "
        f"{counts.ta_fallback} without body indexed by title+abstract, {counts.rejected} rejected (no text) -> {out}",
        highlight=False,
        soft_wrap=True,
    )
    cut = read_manifest(out).get("truncation")
    if cut:
        console.print(f"{cut['over_budget']} of {cut['views']} views longer than the encoder reads "
                      f"({encoder.max_seq_length} tokens): {cut['tokens_cut']} of {cut['tokens']} tokens "
                      f"({100 * cut['share_tokens_cut']:.1f}%) never encoded", highlight=False, soft_wrap=True)


def _index_fulltext(corpus: Path, out: Path, model: str, backend: str, quantize: bool, max_seq_length: int | None,
                    prefix: str, metric: str | None, batch_size: int | None, cache_dir: Path | None,
                    trust_remote_code: bool, overwrite: bool, endpoint: dict) -> None:
    """`sciembed index build PAPERS --out IDX`: the full-text index (`retrieval.fulltext_index`), one directory."""
    from rich.console import Console

    from sciembed.models import load_encoder
    from sciembed.retrieval.fulltext_index import build_fulltext_index
    from sciembed.retrieval.index_out import check_index_out, index_out_dir

    console = Console(stderr=True)
    backend, quantize = encoder_options.resolve_backend(backend, quantize, model)
    try:
        check_index_out(out, overwrite=overwrite)
        encoder = load_encoder(model, backend=backend, quantize=quantize, max_seq_length=max_seq_length,
                               prefix=prefix, metric=metric, cache_dir=cache_dir, trust_remote_code=trust_remote_code,
                               **endpoint)
        console.print(f"full-text index: BM25 over full text + {encoder.name} ({backend}"
                      f"{' int8' if quantize else ''}) over title+abstract and section pieces", highlight=False)
        extra = {"cache_dir": str(cache_dir.resolve()) if cache_dir else None}
        with index_out_dir(out, overwrite=overwrite) as stage:
            counts = build_fulltext_index(corpus, encoder, stage, batch_size=batch_size, extra=extra,
                                          say=lambda line: console.print(line, highlight=False, soft_wrap=True))
    except known_errors() as err:
        fail(str(err))
    from sciembed.retrieval.paper_index import read_manifest

    manifest = read_manifest(out)
    views, timings = manifest["views"], manifest["timings"]
    Console().print(
        f"indexed {counts.indexed + counts.ta_fallback} of {counts.read} papers: BM25 over {views['bm25_texts']} full "
        f"texts, {views['ta']} title+abstract and {views['pieces']} section pieces ({counts.ta_fallback} without "
        f"body), {counts.rejected} rejected (no text), in {timings['total_s']:.0f} s -> {out} (search it with "
        f"`sciembed index search {out} --query TEXT` or `--paper ID`)", highlight=False, soft_wrap=True)


def _index_vectors(vectors: Path, out: Path, view: str | None, index_kind: str, aggregate: str,
                   ann: dict, overwrite: bool) -> None:
    """`sciembed index build VECTORS`: the index from `sciembed encode`'s shards (no encoding)."""
    from rich.console import Console

    from sciembed.retrieval.from_vectors import build_index_from_vectors
    from sciembed.retrieval.index_out import index_out_dir
    from sciembed.retrieval.multivector import check_aggregate

    try:
        check_aggregate(aggregate)
        with index_out_dir(out, overwrite=overwrite) as stage:
            counts = build_index_from_vectors(vectors, stage, view=view, index_kind=index_kind, ann=ann,
                                              aggregate=aggregate)
    except known_errors() as err:
        fail(str(err))
    from sciembed.retrieval.dense import read_meta

    built = read_meta(out / "index").get("index", {})
    Console().print(
        f"indexed {counts.indexed + counts.ta_fallback} of {counts.read} papers from {vectors}: {counts.views} vectors "
        f"in a {built.get('kind', 'flat')} index, {counts.ta_fallback} by title+abstract, "
        f"{counts.rejected} without vectors -> {out}", highlight=False, soft_wrap=True)


def _method_name(method: str | None) -> str | None:
    """`--method`, its old name (max, sum, prism_worst) read as the new one with a note."""
    from sciembed.retrieval.multivector import RENAMED_METHODS

    if method in RENAMED_METHODS:
        note(f"--method {method}", f"--method {RENAMED_METHODS[method]}")
        return RENAMED_METHODS[method]
    return method


def search(
    ctx: typer.Context,
    index_dirs: list[Path] | None = typer.Argument(None, help="Index directories from `sciembed index build` (a "
                                                   "full-text index is one); several are fused by RRF (e.g. a BM25 "
                                                   "and a dense index: hybrid search). Not with --server."),
    query: str | None = typer.Option(None, "--query", help="Free-text query."),
    query_file: Path | None = typer.Option(
        None, "--query-file", help="Read the query text from a file ('-' reads standard input): for long queries."
    ),
    paper: str | None = typer.Option(None, "--paper", help="Paper id in the index, or its DOI, arXiv or ACL id: "
                                     "find papers like it (unknown: near ids and titles are suggested)."),
    papers: Path | None = typer.Option(None, "--papers", help="File of query paper ids (one per line)."),
    queries: Path | None = typer.Option(None, "--queries", help="File of query texts (JSONL, TSV id<TAB>text, "
                                                                "or one per line)."),
    k: int = typer.Option(10, "--k", min=1),
    aggregate: str | None = typer.Option(None, "--aggregate", help="max | mean | sum (default: as built)."),
    method: str | None = typer.Option(None, "--method", help="Paper queries over all views of a dense index: late "
                                      "(late interaction) | max_sim | naive_sum | max_sim_prism_code (the names of "
                                      "`eval run --kind paper_to_paper`; default: best view pair)."),
    output: str = typer.Option("table", "--output-format", help="table | json | trec"),
    out: ResultsOutFile = None,
    fusion: Path | None = typer.Option(None, "--fusion", help="fusion.json (or its directory) tuned by `sciembed "
                                       "eval run --kind paper_to_paper --tune-fusion`: fuses the indexes instead of "
                                       "RRF (default: a fusion.json saved in one of the index directories)."),
    trust_remote_code: bool = typer.Option(
        False, "--trust-remote-code", help="Run Python code shipped in the index's model directory (only for models "
        "you trust; also $SCIEMBED_TRUST_REMOTE_CODE=1). What the index's manifest records is never enough."),
    server: str | None = typer.Option(None, "--server", help="URL of a running `sciembed index serve` (e.g. "
                                      "http://127.0.0.1:8000): it answers with its loaded model and index, no load "
                                      "here ($SCIEMBED_API_KEY is sent when set)."),
) -> None:
    """Top-k papers for query texts or for papers of the index (a query paper never retrieves itself)."""
    method = _method_name(method)
    from sciembed.retrieval.query_files import read_paper_ids, read_query_texts

    if query_file is not None:
        if query is not None:
            fail("give --query or --query-file, not both")
        query = read_query_file(query_file)
    if query is not None and not query.strip():
        fail("the query is empty: an empty text has no meaning to rank by")
    given = [name for name, value in (("--query", query), ("--paper", paper), ("--papers", papers),
                                      ("--queries", queries)) if value is not None]
    if len(given) != 1:
        fail("give exactly one of --query TEXT or --paper ID (or --papers FILE / --queries FILE)"
              + (f"; got {', '.join(given)}" if given else ""))
    if output not in FORMATS:
        fail(f"--output-format {output!r}: expected one of {', '.join(FORMATS)}")
    if (server is None) == (not index_dirs):
        fail("give index directories or --server URL (one of them)")
    if server is not None:
        given = [f for f, v in (("--method", method), ("--aggregate", aggregate), ("--fusion", fusion)) if v]
        if given:
            fail(f"{', '.join(given)}: the server searches as it was started; not with --server")
        from sciembed.cli.remote import ServerError, search_server

        try:
            paper_ids = [paper] if paper is not None else read_paper_ids(papers) if papers is not None else None
            texts = [("query", query)] if query is not None else read_query_texts(queries) if queries else None
            results, titles = search_server(server, texts=texts, papers=paper_ids, k=k)
        except (ServerError, *known_errors()) as err:
            fail(str(err))
            return
        _show(results, titles, output, out, query, paper)
        return
    try:
        from sciembed.models.trust import trusting_code
        from sciembed.retrieval.batch import search_batch
        from sciembed.retrieval.learned_fusion import FusionSpec

        spec = FusionSpec.load(fusion) if fusion is not None else saved_fusion(index_dirs)
        paper_ids = [paper] if paper is not None else read_paper_ids(papers) if papers is not None else None
        texts = [("query", query)] if query is not None else read_query_texts(queries) if queries else None
        notes: list[str] = []
        with trusting_code(trust_remote_code):
            results, titles = search_batch(index_dirs, papers=paper_ids, texts=texts, k=k, method=method,
                                           aggregate=aggregate, fusion=spec, notes=notes)
    except known_errors() as err:
        fail(str(err))
        return
    if notes:
        from rich.console import Console

        Console(stderr=True).print("note: " + "; ".join(notes), highlight=False, soft_wrap=True)
    _show(results, titles, output, out, query, paper)


def _show(results, titles, output: str, out: Path | None, query: str | None, paper: str | None) -> None:
    """Print the rankings (or write them to --out) in the chosen format."""
    text = _render(results, titles, output, single=query is not None or paper is not None,
                   header=f"query: {query}" if query is not None else
                   f"papers like {(shown := results[0][0] if results else paper)}: {titles.get(shown or '', '')}")
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text if output != "table" else _plain_table(results, titles))
        from rich.console import Console

        Console(stderr=True).print(f"wrote {len(results)} rankings ({output}) -> {out}", highlight=False)
    elif text:
        print(text, end="")


def saved_fusion(index_dirs: list[Path]):
    """The fusion saved with the indexes (a ``fusion.json`` in one of several index directories), else None."""
    from sciembed.retrieval.fulltext_index import expand_index_dirs
    from sciembed.retrieval.learned_fusion import FUSION_FILE, FusionSpec

    parts, _ = expand_index_dirs(index_dirs)
    if len(parts) < 2:
        return None
    found = [d / FUSION_FILE for d in dict.fromkeys([*map(Path, index_dirs), *parts]) if (d / FUSION_FILE).is_file()]
    return FusionSpec.load(found[0]) if found else None


def _render(results, titles, output: str, *, single: bool, header: str) -> str:
    import json

    if output == "json":
        return json.dumps([{"query": q, "hits": [{"rank": r, "paper_id": p, "score": s, "title": titles.get(p, "")}
                                                 for r, (p, s) in enumerate(hits, 1)]} for q, hits in results],
                          ensure_ascii=False, indent=1) + "\n"
    if output == "trec":
        return "".join(f"{q} Q0 {p} {r} {s:.6f} sciembed\n" for q, hits in results for r, (p, s) in
                       enumerate(hits, 1))
    if not single:
        return _plain_table(results, titles)
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    hits = results[0][1]
    table = Table(title=escape(header), title_justify="left")  # user text (titles, ids) is text, not markup
    table.add_column("rank", justify="right", no_wrap=True)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("paper", no_wrap=True, min_width=max((len(p) for p, _ in hits), default=5))  # ids never cut
    table.add_column("title", overflow="fold")
    for rank, (pid, score) in enumerate(hits, start=1):
        table.add_row(str(rank), f"{score:.4f}", escape(pid), escape(titles.get(pid, "")))
    Console().print(table)
    return ""


def read_query_file(path: Path) -> str:
    """The query text of --query-file (UTF-8; '-' is standard input)."""
    import sys

    try:
        raw = sys.stdin.buffer.read() if str(path) == "-" else path.read_bytes()
        return raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as err:
        fail(f"--query-file {path}: {err}")
    return ""


def truncation_note(encoder: object, query: str) -> str:
    """A notice when the query is longer than the encoder reads (its tokens past the budget are ignored)."""
    model = getattr(encoder, "model", None)
    tokenizer = getattr(model, "tokenizer", None)
    budget = getattr(encoder, "max_seq_length", None)
    if tokenizer is None or not budget:
        return ""
    tokens = len(tokenizer(query, add_special_tokens=True, truncation=False)["input_ids"])
    return f"note: the query has {tokens} tokens; the encoder reads the first {budget}" if tokens > budget else ""


def _plain_table(results, titles) -> str:
    """One line per hit, columns padded to the longest value: ids are never cut, titles run to the line end."""
    rows = [(q, str(r), f"{s:.4f}", p, titles.get(p, "")) for q, hits in results for r, (p, s) in enumerate(hits, 1)]
    header = ("query", "rank", "score", "paper", "title")
    widths = [max([len(header[i]), *(len(row[i]) for row in rows)]) for i in range(4)]
    lines = ["  ".join(h.ljust(w) if i != 1 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths,
                                                                                             strict=False)))
             + "  title"]
    for row in rows:
        lines.append("  ".join([row[0].ljust(widths[0]), row[1].rjust(widths[1]), row[2].rjust(widths[2]),
                                row[3].ljust(widths[3]), row[4]]))
    return "\n".join(lines) + "\n"


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the app."""
    index_app.command("build")(index)
    index_app.command("search")(search)
