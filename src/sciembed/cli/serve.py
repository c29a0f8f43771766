"""`sciembed serve`: an index directory behind an HTTP API and a web page."""

from __future__ import annotations

import os
from pathlib import Path

import typer


def serve(
    index_dir: Path = typer.Argument(..., help="Directory written by `sciembed index`."),
    host: str = typer.Option("127.0.0.1", "--host"),
    port: int = typer.Option(8000, "--port"),
    model: str | None = typer.Option(
        None, "--model", help="Model to serve with (default: the one the index was built with); another one is refused."
    ),
    api_key_env: str = typer.Option(
        "SCIEMBED_API_KEY", "--api-key-env", help="Environment variable holding the API key for write endpoints."
    ),
    protect_reads: bool = typer.Option(False, "--protect-reads", help="Require the API key on searches too."),
    max_body_mb: float = typer.Option(20.0, "--max-body-mb", min=0.001, help="Largest request body (413 above)."),
    max_k: int = typer.Option(100, "--max-k", min=1, help="Larger k is clamped."),
    timeout: float = typer.Option(30.0, "--timeout", min=0.1, help="Seconds before a request answers 503."),
    cors_origin: list[str] = typer.Option([], "--cors-origin", help="Allow this origin (repeatable); default none."),
    workers_threads: int = typer.Option(1, "--faiss-threads", min=1, help="faiss threads per search."),
    auto_compact: float = typer.Option(
        0.0, "--auto-compact", min=0.0, max=1.0,
        help="Compact after a write once this share of index rows is deleted/replaced (0: never; POST /compact).",
    ),
    grobid: str | None = typer.Option(None, "--grobid", help="GROBID server URL for uploaded PDFs (TEI cached by "
                                      "PDF SHA-256 next to INDEX_DIR); without it PDFs are read offline."),
) -> None:
    """Serve a collection: search by query, paper id or uploaded paper; live adds and deletes."""
    from sciembed.ioutil.memory import limit_malloc_arenas

    limit_malloc_arenas(2)  # before any thread starts: writes otherwise leave freed memory spread over 16 arenas
    import faiss
    import uvicorn
    from rich.console import Console

    from sciembed.cli.search import _fail, _known_errors
    from sciembed.retrieval.collection import Collection
    from sciembed.server import ServerSettings, create_app

    console = Console(stderr=True)
    api_key = os.environ.get(api_key_env) or None
    if protect_reads and not api_key:
        _fail(f"--protect-reads needs an API key in ${api_key_env}")
    faiss.omp_set_num_threads(workers_threads)
    use_pdf_reader(index_dir, grobid)
    try:
        encoder = None
        if model is not None:
            from sciembed.models import load_encoder
            from sciembed.retrieval.paper_index import read_manifest

            settings = read_manifest(index_dir)["encoder"]
            encoder = load_encoder(model, max_seq_length=settings.get("max_seq_length"), metric=settings["metric"],
                                   prefix=settings.get("prefix", ""))
        collection = Collection.open(index_dir, encoder, auto_compact=auto_compact)
    except _known_errors() as err:
        _fail(str(err))
    settings = ServerSettings(
        max_body_bytes=int(max_body_mb * (1 << 20)), max_k=max_k, timeout_s=timeout, api_key=api_key,
        protect_reads=protect_reads, cors_origins=tuple(cors_origin),
    )
    stats = collection.stats()
    console.print(
        f"serving {stats['papers']:,} papers ({stats['vectors']:,} {stats['view']} vectors, {stats['index']['kind']}) "
        f"with {stats['model']['name']} on http://{host}:{port}  (API docs: /docs; writes "
        f"{'need X-API-Key' if api_key else 'are open: set $' + api_key_env + ' to require a key'})",
        highlight=False, soft_wrap=True,
    )
    uvicorn.run(create_app(collection, settings), host=host, port=port, log_level="warning")


def use_pdf_reader(index_dir: Path, grobid: str | None) -> None:
    """Uploaded PDFs go to GROBID at `grobid` (checked now: a dead server stops the start), else offline."""
    from sciembed.cli.ingest import pdf_backend
    from sciembed.cli.search import _fail
    from sciembed.papers.readers.pdf import set_default_backend

    backend = pdf_backend(index_dir, grobid, 10, False, None, 60.0, 300)
    if grobid is not None:
        try:
            backend.client.check()
        except (OSError, ValueError) as err:
            _fail(str(err))
    set_default_backend(backend)


def compact(
    index_dir: Path = typer.Argument(..., help="Directory written by `sciembed index` and updated by a server."),
) -> None:
    """Rewrite a served collection without its deleted / replaced rows (no server may have it open)."""
    from rich.console import Console

    from sciembed.cli.search import _fail, _known_errors
    from sciembed.retrieval.compaction import compact_dir

    try:
        result = compact_dir(index_dir)
    except _known_errors() as err:
        _fail(str(err))
    Console().print(f"compacted {index_dir}: {result.rows_before:,} rows -> {result.rows_after:,} "
                    f"({result.papers:,} papers) in {result.seconds:.1f} s", highlight=False)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
    app.command("compact")(compact)
