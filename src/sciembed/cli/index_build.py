"""`sciembed index build`: a paper index from a corpus directory (or from `sciembed encode`'s vectors)."""

from __future__ import annotations

from pathlib import Path

import typer

from sciembed.cli.encoder_options import EncoderOptions, IndexBackend, Target, encoder_options
from sciembed.cli.errors import fail, failing
from sciembed.cli.groups import index_app
from sciembed.cli.options import (
    BatchSize,
    CacheDir,
    IndexModelSpec,
    IndexOutDir,
    Overwrite,
    SegmentTokens,
    TrustRemoteCode,
)
from sciembed.models.spec import EncoderSpec

VIEW_HELP = ("default (no --view): the full-text index, BM25 over full text + dense title+abstract + dense "
             "section pieces in one directory, searched with the measured fusion; ta: title+abstract; window: a "
             "window at every section header; section: every non-empty section, "
             "split into pieces the encoder reads whole; ta+section: both (for --method late); chunk: CoSAEmb "
             "chunks of the encoder's budget; segment: PRISM's ~3,000-token segments; fulltext: the whole paper "
             "as one view (BM25)")
INDEX_HELP = ("A faiss factory string: auto (from the number of vectors) | Flat (exact, default) | HNSW32[,SQ8] | "
              "IVF1024,PQ48[,RFlat|,Refine(SQ8)]; then optional efSearch=, efConstruction=, nprobe=, k_factor= "
              "(e.g. HNSW32,efSearch=128). hnsw and ivf-pq choose every setting from the collection size.")


@encoder_options(IndexBackend, "auto")
def index(
    corpus: Path = typer.Argument(..., help="Corpus directory (papers.parquet), as written by "
                                  "`sciembed corpus ingest`, or "
                                  "a vectors directory written by `sciembed encode` (its vectors are indexed)."),
    out: IndexOutDir = ...,
    model: IndexModelSpec = "minilm",
    view: str | None = typer.Option(None, "--view", help=VIEW_HELP + " (--model bm25: default ta; from vectors: "
                                    "their only kind)"),
    encoder: EncoderOptions = EncoderOptions(),
    target: Target = None,
    aggregate: str = typer.Option("max", "--aggregate", help="Paper score over its views: max | mean | sum."),
    batch_size: BatchSize = None,
    cache_dir: CacheDir = None,
    segment_tokens: SegmentTokens = 3000,
    index_kind: str = typer.Option("Flat", "--index", help=INDEX_HELP),
    shard_papers: int | None = typer.Option(
        None, "--shard-papers", min=1, help="Encode out of core in shards of this many papers (resumable)."
    ),
    trust_remote_code: TrustRemoteCode = False,
    overwrite: Overwrite = False,
) -> None:
    """Encode a corpus' papers and write a searchable index: by default the full-text one (BM25 full text + dense
    title+abstract + dense section pieces, one directory); `--view ta` etc.: one view, exact, HNSW or IVF-PQ
    (`--model bm25`: BM25).

    An existing index in --out is refused without --overwrite; with it the new index replaces the old one whole
    when it is finished (no file of the old one is left).
    """
    from sciembed.index.encode.store import is_vectors_dir
    from sciembed.retrieval.index_factory import parse_index_factory

    with failing():
        kind, ann = parse_index_factory(index_kind)
    if is_vectors_dir(corpus):
        _index_vectors(corpus, out, view, kind, aggregate, ann, overwrite)
        return
    bm25 = model.lower() == "bm25"
    spec = None if bm25 else encoder.spec(model)
    if view is None and not bm25:
        given = [flag for flag, value in (("--shard-papers", shard_papers), ("--aggregate", aggregate != "max"),
                                          ("--target", target)) if value]
        if given:
            fail(f"{', '.join(given)}: an option of one view; the full-text default (no --view) builds its own "
                 "parts (add --view ta, section, … to use it)")
        _index_fulltext(corpus, out, spec, batch_size, cache_dir, trust_remote_code, overwrite, kind, ann)
        return
    _index_view(corpus, out, spec, view or "ta", kind, ann, aggregate, target, batch_size, cache_dir,
                segment_tokens, shard_papers, trust_remote_code, overwrite)


def _index_view(corpus: Path, out: Path, spec: EncoderSpec | None, view: str, kind: str, ann: dict,
                aggregate: str, target: int | None, batch_size: int | None, cache_dir: Path | None,
                segment_tokens: int, shard_papers: int | None, trust_remote_code: bool, overwrite: bool) -> None:
    """`sciembed index build PAPERS --view V`: one view's index (`spec` None: BM25)."""
    from rich.console import Console

    from sciembed.index.index_out import check_index_out, index_out_dir
    from sciembed.index.paper_index import build_paper_index
    from sciembed.retrieval.multivector import check_aggregate
    from sciembed.views.kinds import index_view

    with failing():
        index_view(view)
        check_aggregate(aggregate)
        check_index_out(out, overwrite=overwrite, resumable=bool(shard_papers) and spec is not None)
        if spec is None:
            from sciembed.index.bm25_paper import build_bm25_index

            with index_out_dir(out, overwrite=overwrite) as stage:
                counts = build_bm25_index(corpus, view, stage, target=target or 358, segment_tokens=segment_tokens)
            Console().print(f"indexed {counts.indexed + counts.ta_fallback} of {counts.read} papers with BM25: "
                            f"{counts.views} {view} views, {counts.ta_fallback} without body indexed by "
                            f"title+abstract, {counts.rejected} rejected (no text) -> {out}",
                            highlight=False, soft_wrap=True)
            return
        encoder = spec.load(cache_dir=cache_dir, trust_remote_code=trust_remote_code)
        extra = {"cache_dir": str(cache_dir.resolve()) if cache_dir else None}
        with index_out_dir(out, overwrite=overwrite, resumable=bool(shard_papers)) as stage:
            counts = build_paper_index(corpus, encoder, view, stage, target=target, batch_size=batch_size,
                                       aggregate=aggregate, extra=extra, segment_tokens=segment_tokens, index_kind=kind,
                                       ann=ann, shard_papers=shard_papers)
    from sciembed.index.paper_index import read_manifest
    from sciembed.retrieval.dense import read_meta

    built = read_meta(out / "index").get("index", {})
    console = Console()
    console.print(f"indexed {counts.indexed + counts.ta_fallback} of {counts.read} papers: {counts.views} {view} "
                  f"views in a {built.get('kind', 'flat')} index, {counts.ta_fallback} without body indexed by "
                  f"title+abstract, {counts.rejected} rejected (no text) -> {out}", highlight=False, soft_wrap=True)
    cut = read_manifest(out).get("truncation")
    if cut:
        console.print(f"{cut['over_budget']} of {cut['views']} views longer than the encoder reads "
                      f"({encoder.max_seq_length} tokens): {cut['tokens_cut']} of {cut['tokens']} tokens "
                      f"({100 * cut['share_tokens_cut']:.1f}%) never encoded", highlight=False, soft_wrap=True)


def _index_fulltext(corpus: Path, out: Path, spec: EncoderSpec, batch_size: int | None, cache_dir: Path | None,
                    trust_remote_code: bool, overwrite: bool, kind: str, ann: dict) -> None:
    """`sciembed index build PAPERS --out IDX`: the full-text index (`retrieval.fulltext_index`), one directory;
    `--index` (`kind`, `ann`) is the kind of its two dense parts' indexes (title+abstract, late views)."""
    from rich.console import Console

    from sciembed.index.fulltext_index import build_fulltext_index
    from sciembed.index.index_out import check_index_out, index_out_dir

    console = Console(stderr=True)
    with failing():
        check_index_out(out, overwrite=overwrite)
        encoder = spec.load(cache_dir=cache_dir, trust_remote_code=trust_remote_code)
        console.print(f"full-text index: BM25 over full text + {encoder.name} ({spec.backend}"
                      f"{' int8' if spec.quantize else ''}) over title+abstract and section pieces", highlight=False)
        extra = {"cache_dir": str(cache_dir.resolve()) if cache_dir else None}
        with index_out_dir(out, overwrite=overwrite) as stage:
            counts = build_fulltext_index(corpus, encoder, stage, batch_size=batch_size, extra=extra,
                                          say=lambda line: console.print(line, highlight=False, soft_wrap=True),
                                          late_index=kind, ann=ann)
    from sciembed.index.paper_index import read_manifest

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

    from sciembed.index.index_out import index_out_dir
    from sciembed.index.paper_index import build_index_from_vectors
    from sciembed.retrieval.multivector import check_aggregate

    with failing():
        check_aggregate(aggregate)
        with index_out_dir(out, overwrite=overwrite) as stage:
            counts = build_index_from_vectors(vectors, stage, view=view, index_kind=index_kind, ann=ann,
                                              aggregate=aggregate)
    from sciembed.retrieval.dense import read_meta

    built = read_meta(out / "index").get("index", {})
    Console().print(
        f"indexed {counts.indexed + counts.ta_fallback} of {counts.read} papers from {vectors}: {counts.views} vectors "
        f"in a {built.get('kind', 'flat')} index, {counts.ta_fallback} by title+abstract, "
        f"{counts.rejected} without vectors -> {out}", highlight=False, soft_wrap=True)


def register(app: typer.Typer) -> None:
    """Add this stage's commands to the app."""
    index_app.command("build")(index)
