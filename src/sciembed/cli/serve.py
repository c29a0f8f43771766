"""`sciembed index serve`: an index directory behind an HTTP API and a web page."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import typer

from sciembed.cli.encoder_options import EncoderOptions, ServedBackend, encoder_options
from sciembed.cli.errors import fail, failing
from sciembed.cli.groups import index_app
from sciembed.cli.options import ConfigSets, ServeBatchSize, ServeConfigFile, ServedModelSpec, TrustRemoteCode
from sciembed.cli.serve_config import TUNING_HELP

SERVE_HELP = ("Serve a collection: search by query, paper id or uploaded paper; live adds and deletes.\n\n"
              "Limits, threads and batching come from -c SERVE.yaml and --set KEY=VALUE: " + TUNING_HELP + ".")


@encoder_options(ServedBackend, None, endpoint=False)
def serve(
    index_dir: Path = typer.Argument(..., help="Directory written by `sciembed index build` (a full-text index: "
                                     "similar papers by its measured fusion)."),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8000, "--port"),
    model: ServedModelSpec = None,
    api_key_env: str = typer.Option(
        "SCIEMBED_API_KEY", "--api-key-env", help="Environment variable holding the API key for write endpoints."
    ),
    protect_reads: bool = typer.Option(False, "--protect-reads", help="Require the API key on searches too."),
    cors_origin: list[str] = typer.Option([], "--cors-origin", help="Allow this origin (repeatable); default none."),
    grobid: str | None = typer.Option(None, "--grobid", help="GROBID server URL for uploaded PDFs (TEI cached by "
                                      "PDF SHA-256 next to INDEX_DIR); without it PDFs are read offline."),
    allow_open_writes: bool = typer.Option(
        False, "--allow-open-writes", help="Accept writes without an API key (default: writes need $SCIEMBED_API_KEY)."
    ),
    allowed_hosts: list[str] = typer.Option(
        [], "--allowed-hosts",
        help="Host names clients reach the server by (repeatable; '*': any). Default: --host and localhost.",
    ),
    encoder: EncoderOptions = EncoderOptions(backend=None),
    trust_remote_code: TrustRemoteCode = False,
    batch_size: ServeBatchSize = 32,
    config: ServeConfigFile = None,
    sets: ConfigSets = [],  # noqa: B006 (typer reads the default, never mutates it)
    fused_with: list[Path] = typer.Option(
        [], "--fused-with", help="Companion index directory (repeatable; e.g. BM25 --view fulltext and a dense "
        "--view ta index): similar papers use the learned fusion of these and INDEX_DIR (late if ta+section).",
    ),
    fusion: Path | None = typer.Option(
        None, "--fusion", help="fusion.json for --fused-with (default: a fusion.json in one of the index directories)."
    ),
) -> None:
    from sciembed.ioutil.memory import limit_malloc_arenas

    limit_malloc_arenas(2)  # before any thread starts: writes otherwise leave freed memory spread over 16 arenas
    import faiss
    import uvicorn
    from rich.console import Console

    from sciembed.cli.serve_config import serve_tuning
    from sciembed.index.collection import Collection
    from sciembed.server import ServerSettings, create_app
    from sciembed.server.settings import LOCAL_HOSTS

    console = Console(stderr=True)
    with failing():
        tuning = serve_tuning(config, sets)
    api_key = os.environ.get(api_key_env) or None
    if protect_reads and not api_key:
        fail(f"--protect-reads needs an API key in ${api_key_env}")
    faiss.omp_set_num_threads(tuning.faiss_threads)
    import torch

    torch.set_num_threads(tuning.encode_threads or os.cpu_count() or 1)  # one pool for the batching encoder (ONNX too)
    if encoder.quantize and encoder.backend != "onnx":
        fail("--quantize needs --backend onnx")
    use_pdf_reader(index_dir, grobid)
    if fusion is None and (index_dir / "fusion.json").is_file() and not (index_dir / "index").exists():
        fusion = index_dir / "fusion.json"  # tuned for a full-text index and saved beside its parts
    index_dir, fused_with = served_parts(index_dir, fused_with)
    with failing():
        query_encoder = None
        if model is not None or any(v is not None for v in (encoder.backend, *encoder.given.values())) \
                or trust_remote_code:
            query_encoder = serving_encoder(index_dir, model, encoder, trust_remote_code)
        paper_search = fused_paper_search(index_dir, fused_with, fusion) if fused_with or fusion else None
        collection = Collection.open(index_dir, query_encoder, paper_search=paper_search,
                                     auto_compact=tuning.auto_compact)
    hosts = tuple(allowed_hosts) or tuple(dict.fromkeys((host, *LOCAL_HOSTS)))
    settings = ServerSettings(max_body_bytes=int(tuning.max_body_mb * (1 << 20)), max_k=tuning.max_k,
                              timeout_s=tuning.timeout, api_key=api_key, protect_reads=protect_reads,
                              cors_origins=tuple(cors_origin), allow_open_writes=allow_open_writes, allowed_hosts=hosts,
                              max_batch_texts=batch_size, batch_wait_ms=tuning.batch_wait_ms,
                              max_queue=tuning.max_queue, query_cache=tuning.query_cache,
                              write_encoder=tuning.write_encoder, searches_at_once=tuning.searches_at_once)
    stats = collection.stats()
    console.print(
        f"serving {stats['papers']:,} papers ({stats['vectors']:,} {stats['view']} vectors, {stats['index']['kind']}) "
        f"with {stats['model']['name']} on http://{host}:{port}  (API docs: /docs; "
        f"{writes_note(api_key, allow_open_writes, api_key_env)}; "
        f"hosts {', '.join(hosts)}; encoder {stats['model'].get('backend')}, batches of {batch_size})"
        + (f"; similar papers: {paper_search.label}" if paper_search is not None else ""),
        highlight=False, soft_wrap=True,
    )
    uvicorn.run(create_app(collection, settings), host=host, port=port, log_level="warning")


def served_parts(index_dir: Path, fused_with: list[Path]) -> tuple[Path, list[Path]]:
    """A full-text index is served as its ``late`` part, fused with its ``bm25`` and ``ta`` parts; others as given."""
    from sciembed.index.fulltext_index import fulltext_parts, is_fulltext_index

    if not is_fulltext_index(index_dir):
        return index_dir, fused_with
    parts = fulltext_parts(index_dir)
    return parts["late"], [parts["bm25"], parts["a2a"], *fused_with]


def fused_paper_search(index_dir: Path, fused_with: list[Path], fusion: Path | None):
    """Similar papers through the learned fusion of the served index and its companions (`FusedPaperSearch`)."""
    from sciembed.index.paper_index import read_manifest
    from sciembed.search.learned_fusion import FusionSpec
    from sciembed.search.open import saved_fusion
    from sciembed.search.served import FusedPaperSearch

    if not fused_with:
        fail("--fusion needs the companion indexes it fuses: --fused-with DIR (repeatable)")
    spec = FusionSpec.load(fusion) if fusion is not None else saved_fusion([index_dir, *fused_with])
    return FusedPaperSearch(spec, fused_with, read_manifest(index_dir)["view"])  # None: the measured default


def use_pdf_reader(index_dir: Path, grobid: str | None) -> None:
    """Uploaded PDFs go to GROBID at `grobid` (checked now: a dead server stops the start), else offline."""
    from sciembed.cli.pdf_options import pdf_backend
    from sciembed.papers.readers.pdf import set_default_backend

    backend = pdf_backend(index_dir, grobid)
    if grobid is not None:
        with failing(OSError, ValueError):
            backend.client.check()
    set_default_backend(backend)


def writes_note(api_key: str | None, allow_open_writes: bool, api_key_env: str) -> str:
    if api_key:
        return "writes need X-API-Key"
    return "writes are open (--allow-open-writes)" if allow_open_writes else \
        f"writes are refused: set ${api_key_env} or pass --allow-open-writes"


def serving_encoder(index_dir: Path, model: str | None, options: EncoderOptions, trust_remote_code: bool) -> Any:
    """The index's `EncoderSpec` with `model` and the encoder `options` of the command line (None: the index's);
    `Collection.open` checks the fingerprint, so a spec that makes other vectors (e.g. onnx for a torch-built
    index) is refused."""
    from sciembed.index.paper_index import read_manifest
    from sciembed.models.spec import EncoderSpec
    from sciembed.models.trust import run_time_trust

    manifest = read_manifest(index_dir)
    built = EncoderSpec.from_described(manifest["encoder"])
    if options.backend not in (None, built.backend):  # another backend: its own quantisation, no endpoint
        built = built.model_copy(update={"quantize": False, "base_url": None, "api_key_env": None, "dimensions": None})
    spec = replace(options, backend=options.backend or built.backend).spec(model or built.model, base=built)
    return spec.load(cache_dir=Path(manifest["cache_dir"]) if manifest.get("cache_dir") else None,
                     trust_remote_code=trust_remote_code or run_time_trust())  # the user's choice, never the file's


def compact(
    index_dir: Path = typer.Argument(..., help="Directory written by `sciembed index build` and updated by a server."),
) -> None:
    """Rewrite a served collection without its deleted / replaced rows (no server may have it open)."""
    from rich.console import Console

    from sciembed.index.compaction import compact_dir

    with failing():
        result = compact_dir(index_dir)
    Console().print(f"compacted {index_dir}: {result.rows_before:,} rows -> {result.rows_after:,} "
                    f"({result.papers:,} papers) in {result.seconds:.1f} s", highlight=False)


def register(app: typer.Typer) -> None:
    index_app.command("serve", help=SERVE_HELP)(serve)
    index_app.command("compact")(compact)
