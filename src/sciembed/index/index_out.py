"""Where `sciembed index build` writes: a fresh directory, a resumed sharded run, or a replaced index.

An existing index directory is refused unless `overwrite`; then the new index is built under a hidden staged
name and swapped in only when finished (`ioutil.atomic.staged_dir`): the old one answers until then, survives
a failed build, and leaves no file behind after the swap. Only a sharded build (``--shard-papers``) writes in
place, into a new directory or the ``shards/`` a killed run of it left: that makes it resumable.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sciembed.ioutil.atomic import OutputError, output_lock, refuse_links, staged_dir

MANIFEST = "manifest.json"
# what `index build`, `eval --set tune_fusion=true` and `index compact` write into an index directory
INDEX_FILES = frozenset({MANIFEST, "index", "papers.json", "views.jsonl", "bm25s", "shards", "fusion.json",
                         "bm25", "ta", "late"})  # the last three: the parts of a full-text index


def check_index_out(out: Path, *, overwrite: bool = False, resumable: bool = False) -> bool:
    """Refuse what `index_out_dir` would refuse, before any model is loaded; True when the build runs in place.

    `OutputError` (the CLI exits 2) for an existing index without `overwrite`, a directory holding other files
    than an index's (even with `overwrite`), a file, and symbolic links inside `out`.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a directory")
    refuse_links(out)
    entries = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    killed_shards = not (out / MANIFEST).exists() and (out / "shards").is_dir() and set(entries) <= INDEX_FILES
    if resumable and not overwrite and (not entries or killed_shards):
        return True
    if entries and not overwrite:
        held = "an index" if (out / MANIFEST).is_file() else f"files ({', '.join(entries[:4])})"
        raise OutputError(f"{out}: already holds {held}; pass --overwrite to replace it")
    # a finished index (manifest) or only the files an index build writes (a killed build's leftovers)
    if entries and not ((out / MANIFEST).is_file() or set(entries) <= INDEX_FILES):
        foreign = [name for name in entries if name not in INDEX_FILES]
        raise OutputError(f"{out}: holds files an index build did not write ({', '.join(foreign[:4])}); "
                          "not replacing them (choose another --out)")
    return False


@contextmanager
def index_out_dir(out: Path, *, overwrite: bool = False, resumable: bool = False) -> Iterator[Path]:
    """Yield the directory to build the index in: `out` itself (a resumable sharded build) or a staged one,
    published as `out` when the block ends without an error (removed on an error, `out` untouched)."""
    out = Path(out)
    if check_index_out(out, overwrite=overwrite, resumable=resumable):
        with output_lock(out):
            out.mkdir(parents=True, exist_ok=True)
            yield out
        return
    with staged_dir(out, overwrite=overwrite, replaceable=lambda _: True) as stage:
        yield stage
