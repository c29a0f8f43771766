"""The FastAPI app: routes over one `Collection`, the web page, limits, key, JSON errors.

Blocking work (encoding, faiss, SQLite) runs in the thread pool under a
timeout, so the event loop keeps answering /health while a long write runs.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Any

from fastapi import FastAPI, File, Form, UploadFile
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, Response

from sciembed.index.collection import Collection
from sciembed.index.collection_results import Filters, SearchResult
from sciembed.ioutil import deadline as deadlines
from sciembed.models.batching import MicroBatcher, Overloaded
from sciembed.search.paper_lookup import PaperLookup
from sciembed.server import errors, uploads
from sciembed.server.errors import ApiError
from sciembed.server.guard import Guard
from sciembed.server.limits import BodyLimit
from sciembed.server.schemas import (
    WAIT,
    AddPapersRequest,
    AddPapersResponse,
    HitOut,
    SearchFilters,
    SearchRequest,
    SearchResponse,
)
from sciembed.server.settings import ServerSettings
from sciembed.server.write_encoder import second_instance

STATIC = files("sciembed.server") / "static"
STATIC_TYPES = {"app.js": "text/javascript", "style.css": "text/css"}
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_text(value: str | None, field: str) -> None:
    """422 for a lone surrogate (valid JSON, not encodable as UTF-8: it would fail deep inside, as a 500)."""
    if value is not None and _SURROGATE.search(value):
        raise ApiError(422, f"{field} holds a lone surrogate escape (not valid Unicode text)")


def resolve_paper(collection: Collection, paper_id: str) -> str:
    """The collection's id for `paper_id` (an id, DOI, arXiv, ACL … id); 404 naming near ids and titles."""
    catalog = collection.catalog
    if catalog.has_paper(paper_id):
        return paper_id
    lookup = PaperLookup(catalog.titles(), catalog.external_ids, "this collection")
    found = lookup.find(paper_id)
    if found is None:
        hints = [{"id": p, "title": lookup.titles.get(p, "")} for p in lookup.suggestions(paper_id)]
        raise ApiError(404, lookup.message(paper_id), details={"suggestions": hints})
    return found


def batched(collection: Collection, settings: ServerSettings) -> None:
    """Put the collection's encoder behind one micro-batching queue (writes on a second instance of it with
    `settings.write_encoder` "separate"), and gather its searches (once)."""
    if not isinstance(collection.encoder, MicroBatcher):
        writer = second_instance(collection.encoder, collection.manifest) \
            if settings.write_encoder == "separate" else None
        collection.encoder = MicroBatcher(collection.encoder, max_batch=settings.max_batch_texts,
                                          max_wait_ms=settings.batch_wait_ms, max_queue=settings.max_queue,
                                          cache_size=settings.query_cache, write_encoder=writer)
    collection.gather_searches(settings.max_batch_texts, settings.search_wait_ms)
    collection.queue.resume()  # queued adds a stopped server left: with the encoders above


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    """Starting: remove the upload directories of servers killed before they could. Stopping: kill the PDF
    parses in flight (their requests are answered or abandoned by now; a parse must not outlive the server)."""
    from sciembed.papers.pdf.offline import stop_all_parses

    await run_in_threadpool(uploads.remove_abandoned_uploads)
    try:
        yield
    finally:
        stop_all_parses()


def create_app(collection: Collection, settings: ServerSettings | None = None) -> FastAPI:
    """A FastAPI app serving `collection` with `settings`' limits."""
    settings = settings or ServerSettings()
    app = FastAPI(title="sciembed",
                  summary="Search a full-text paper collection by question, by paper id, or by a whole paper.",
                  version="1", lifespan=lifespan)
    batched(collection, settings)
    app.state.collection = collection
    app.state.settings = settings
    errors.install(app)
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    if settings.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins), allow_methods=["*"],
                           allow_headers=["*"])
    app.add_middleware(Guard, settings=settings)  # outermost: hosts, keys and origins before anything else

    def bounded(fn, *args, **kwargs):
        with deadlines.deadline(settings.timeout_s):
            return fn(*args, **kwargs)

    async def run(fn, *args, **kwargs):
        """`fn` in the thread pool; past the timeout the client gets 503 and the work stops at its next check."""
        try:
            return await asyncio.wait_for(run_in_threadpool(bounded, fn, *args, **kwargs), settings.timeout_s)
        except (TimeoutError, deadlines.DeadlineExceeded) as err:
            raise ApiError(503, f"the request took longer than {settings.timeout_s:g} s", "timeout") from err
        except Overloaded as err:
            raise ApiError(503, f"the server is busy: {err}; retry after {err.retry_after} s", "overloaded",
                           headers={"Retry-After": str(err.retry_after)}) from err

    # Searches take turns (`searches_at_once`); writes never wait for one. Fewer searches at once make
    # shorter search passes for a one-paper add to share the cores with, at the cost of searches/s (issue 33).
    turns = threading.BoundedSemaphore(settings.searches_at_once) if settings.searches_at_once else None

    def search_turn(**kwargs) -> SearchResult:
        if turns is None:
            return collection.search(**kwargs)
        left = deadlines.remaining()
        if not turns.acquire(timeout=None if left is None else max(left, 0.0)):
            raise deadlines.DeadlineExceeded("waiting for a search turn")
        try:
            return collection.search(**kwargs)
        finally:
            turns.release()

    async def run_write(fn, *args):
        """Writes get no timeout: a write answered 503 could still commit, and the client could not tell."""
        return await run_in_threadpool(fn, *args)

    # ------------------------------------------------------------ page

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    def page() -> HTMLResponse:
        return HTMLResponse((STATIC / "index.html").read_text(encoding="utf-8"))

    @app.get("/static/{name}", include_in_schema=False)
    def static(name: str) -> Response:
        if name not in STATIC_TYPES:  # a fixed list: the name never becomes a path
            raise ApiError(404, f"no static file {name!r}")
        return Response((STATIC / name).read_text(encoding="utf-8"), media_type=STATIC_TYPES[name])

    # ------------------------------------------------------------- reads

    @app.get("/health", summary="Liveness")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/stats", summary="Papers, vectors, model fingerprint, index kind, encode batching")
    async def stats() -> dict[str, Any]:
        out = await run(collection.stats)
        if isinstance(collection.encoder, MicroBatcher):
            out["batching"] = collection.encoder.report()
        if (gathered := collection.gathering_stats()) is not None:
            out["search_gathering"] = gathered
        # what the page's "add a paper" control needs: writes with an API key, open to anyone, or refused
        out["writes"] = "key" if settings.api_key else "open" if settings.allow_open_writes else "closed"
        return out

    @app.get("/papers/{paper_id:path}", summary="One paper: metadata and sections with roles")
    async def get_paper(paper_id: str) -> dict[str, Any]:
        check_text(paper_id, "paper id")
        queued = await run(collection.catalog.pending_state, paper_id)  # a queued add (`"wait": false`)
        if queued is not None and not await run(collection.holds, paper_id):
            ahead, error = queued
            if error:
                raise ApiError(422, f"paper {paper_id!r} was queued but could not be indexed: {error}", "index_failed")
            raise ApiError(404, f"paper {paper_id!r} is queued to be indexed ({ahead} papers ahead of it); "
                           "retry shortly", "queued")
        card = await run(collection.paper, await run(resolve_paper, collection, paper_id))  # id, DOI, ACL id…
        if card is None:
            raise ApiError(404, f"no paper {paper_id!r} in this collection")
        if queued is not None:
            card["queued"] = {"ahead": queued[0], "error": queued[1]}  # a newer copy waits to replace this one
        return card

    def clamp(k: int, offset: int) -> tuple[int, int, list[str]]:
        if k <= 0:
            raise ApiError(422, f"k must be at least 1 (got {k})")
        if offset > settings.max_offset:
            raise ApiError(422, f"offset {offset} is over the limit of {settings.max_offset}")
        notes = []
        if k > settings.max_k:
            notes.append(f"k={k} clamped to {settings.max_k}")
            k = settings.max_k
        return k, offset, notes

    def respond(result: SearchResult, notes: list[str], paper: dict[str, Any] | None = None) -> SearchResponse:
        return SearchResponse(hits=[HitOut(**vars(h)) for h in result.hits], k=result.k, offset=result.offset,
                              more=result.more, took_ms=round(result.took_ms, 2), query_views=result.query_views,
                              notes=notes, paper=paper)

    def filters_of(f: SearchFilters) -> Filters:
        if f.year_min is not None and f.year_max is not None and f.year_min > f.year_max:
            raise ApiError(422, f"year_min {f.year_min} is after year_max {f.year_max}")
        return Filters(**f.model_dump())

    async def searched(**kwargs) -> SearchResult:
        try:
            return await run(search_turn, **kwargs)
        except KeyError as err:
            raise ApiError(404, f"no paper {err.args[0]!r} in this collection") from err
        except ValueError as err:
            raise ApiError(422, str(err)) from err

    @app.post("/search", response_model=SearchResponse, summary="Search by query, paper id or whole paper")
    async def search(body: SearchRequest) -> SearchResponse:
        given = [name for name in ("query", "paper_id", "paper") if getattr(body, name) is not None]
        if len(given) != 1:
            raise ApiError(422, f"give exactly one of query, paper_id, paper (got {', '.join(given) or 'none'})")
        if body.query is not None and not body.query.strip():
            raise ApiError(422, "the query is empty")
        check_text(body.query, "query")
        check_text(body.paper_id, "paper_id")
        k, offset, notes = clamp(body.k, body.offset)
        paper = None
        if body.paper is not None:
            papers, rejections = await run(uploads.papers_from_dicts, [body.paper])
            if not papers:
                raise ApiError(422, f"not a paper: {rejections[0].message}", "not_a_paper")
            paper = papers[0]
        paper_id = None if body.paper_id is None else await run(resolve_paper, collection, body.paper_id)
        result = await searched(query=body.query, paper_id=paper_id, paper=paper, k=k, offset=offset,
                                filters=filters_of(body.filters), ef_search=body.ef_search, nprobe=body.nprobe,
                                refine_k_factor=body.refine_k_factor)
        return respond(result, notes)

    @app.post("/search/file", response_model=SearchResponse, summary="Search with an uploaded paper file")
    async def search_file(
        file: UploadFile = File(..., description="S2ORC/peS2o JSON, unarXive, science-parse, GROBID TEI, JATS"),
        format: str = Form("auto"),
        k: int = Form(10),
        offset: int = Form(0, ge=0),
        year_min: int | None = Form(None),
        year_max: int | None = Form(None),
        venue: str | None = Form(None),
        domain: str | None = Form(None),
        id: str | None = Form(None, description="The paper's id (default: the file name's stem, as ingest gives)"),
    ) -> SearchResponse:
        k, offset, notes = clamp(k, offset)
        filters = filters_of(SearchFilters(year_min=year_min, year_max=year_max, venue=venue or None,
                                           domain=domain or None))
        data = await file.read()
        paper = (await run(uploads.papers_from_upload, data, file.filename, format, max_papers=1,
                           max_expanded_bytes=settings.max_upload_expanded_bytes, paper_id=id))[0]
        notes.append("searched with the file's first paper")
        result = await searched(paper=paper, k=k, offset=offset, filters=filters)
        shown = {"id": paper.id, "title": paper.title, "year": paper.year, "venue": paper.venue,
                 "venue_short": paper.venue_short, "authors": [a.name for a in paper.authors],
                 "sections": [{"heading": s.heading, "role": str(s.role)} for s in paper.sections]}
        return respond(result, notes, shown)

    # ------------------------------------------------------------ writes

    async def add(papers, rejections, wait: bool = True) -> AddPapersResponse:
        """`papers` (at most `settings.max_batch`: the routes check) added, or queued without `wait`."""
        if not papers:
            counts = {"added": 0, "replaced": 0, "views": 0, "skipped_no_text": 0}
        elif wait:
            counts = await run_write(collection.add_papers, papers)
        else:  # on disk when answered, searchable once the write queue has indexed it
            counts = {"added": 0, "replaced": 0, **await run_write(collection.queue.enqueue, papers)}
        total = await run(lambda: len(collection.index))
        return AddPapersResponse(**counts, rejected=len(rejections), rejections=[r.to_dict() for r in rejections[:50]],
                                 papers=total, ids=[{"id": p.id, "title": p.title} for p in papers[:50]])

    @app.post("/papers", response_model=AddPapersResponse, summary="Add or replace papers (own JSON format)")
    async def add_papers(body: AddPapersRequest) -> AddPapersResponse:
        if len(body.papers) > settings.max_batch:
            raise ApiError(413, f"{len(body.papers)} papers in one request; the limit is {settings.max_batch}")
        papers, rejections = await run(uploads.papers_from_dicts, body.papers)
        return await add(papers, rejections, body.wait)

    @app.post("/papers/file", response_model=AddPapersResponse, summary="Add or replace the papers of a file")
    async def add_file(file: UploadFile = File(...), format: str = Form("auto"), id: str | None = Form(
            None, description="The paper's id (default: the file name's stem, as ingest gives)"),
            wait: bool = Form(True, description=WAIT)) -> AddPapersResponse:
        data = await file.read()
        papers, rejections = await run(uploads.read_upload, data, file.filename, format,
                                       max_papers=settings.max_batch + 1,
                                       max_expanded_bytes=settings.max_upload_expanded_bytes, paper_id=id)
        if len(papers) > settings.max_batch:
            raise ApiError(413, f"the file holds more than {settings.max_batch} papers (the limit per request)")
        return await add(uploads.require_papers(papers, rejections), rejections, wait)

    @app.post("/compact", summary="Rewrite the collection without deleted / replaced rows")
    async def compact() -> dict[str, Any]:
        from sciembed.index.compaction import CollectionBusy

        try:
            return await run_write(collection.compact)
        except CollectionBusy as err:
            raise ApiError(409, str(err), "busy") from err

    @app.delete("/papers/{paper_id:path}", summary="Remove a paper")
    async def delete_paper(paper_id: str) -> dict[str, Any]:
        check_text(paper_id, "paper id")
        found = await run(resolve_paper, collection, paper_id)  # id, other case, DOI, ACL id…; else 404 with hints
        if not await run_write(collection.delete, found):
            raise ApiError(404, f"no paper {paper_id!r} in this collection")
        return {"deleted": found}

    return app
