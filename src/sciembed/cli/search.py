"""`sciembed index search`: top-k papers of one or more index directories (or of a running server)."""

from __future__ import annotations

from pathlib import Path

import typer

from sciembed.cli.errors import fail, failing, known_errors
from sciembed.cli.groups import index_app
from sciembed.cli.options import ResultsOutFile, TrustRemoteCode

FORMATS = ("table", "json", "trec")


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
                                       "eval run --kind paper_to_paper --set tune_fusion=true`: fuses the indexes "
                                       "instead of RRF (default: a fusion.json saved in one of the index "
                                       "directories)."),
    trust_remote_code: TrustRemoteCode = False,
    server: str | None = typer.Option(None, "--server", help="URL of a running `sciembed index serve` (e.g. "
                                      "http://127.0.0.1:8000): it answers with its loaded model and index, no load "
                                      "here ($SCIEMBED_API_KEY is sent when set)."),
) -> None:
    """Top-k papers for query texts or for papers of the index (a query paper never retrieves itself)."""
    from sciembed.search.query_files import read_paper_ids, read_query_texts

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

        with failing(ServerError, *known_errors()):
            paper_ids = [paper] if paper is not None else read_paper_ids(papers) if papers is not None else None
            texts = [("query", query)] if query is not None else read_query_texts(queries) if queries else None
            results, titles = search_server(server, texts=texts, papers=paper_ids, k=k)
        _show(results, titles, output, out, query, paper)
        return
    with failing():
        from sciembed.models.trust import trusting_code
        from sciembed.search.batch import search_batch
        from sciembed.search.learned_fusion import FusionSpec
        from sciembed.search.open import saved_fusion

        spec = FusionSpec.load(fusion) if fusion is not None else saved_fusion(index_dirs)
        paper_ids = [paper] if paper is not None else read_paper_ids(papers) if papers is not None else None
        texts = [("query", query)] if query is not None else read_query_texts(queries) if queries else None
        notes: list[str] = []
        with trusting_code(trust_remote_code):
            results, titles = search_batch(index_dirs, papers=paper_ids, texts=texts, k=k, method=method,
                                           aggregate=aggregate, fusion=spec, notes=notes)
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


def _render(results, titles, output: str, *, single: bool, header: str) -> str:
    import json

    if output == "json":
        return json.dumps([{"query": q, "hits": [{"rank": r, "paper_id": p, "score": s, "title": titles.get(p, "")}
                                                 for r, (p, s) in enumerate(hits, 1)]} for q, hits in results],
                          ensure_ascii=False, indent=1) + "\n"
    if output == "trec":
        return "".join(f"{q} Q0 {p} {r} {s:.6f} sciembed\n" for q, hits in results for r, (p, s) in enumerate(hits, 1))
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
    index_app.command("search")(search)
