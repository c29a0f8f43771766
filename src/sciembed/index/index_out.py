"""Where `sciembed index build` writes: a fresh directory, a resumed sharded run, or a replaced index.

An existing index directory (its ``manifest.json``, or the files a killed
build left) is refused unless `overwrite`, as `corpus ingest` and `train`
refuse theirs. With `overwrite`, the new index is built under a hidden staged
name beside the old one and swapped in only when it is finished
(`ioutil.atomic.staged_dir`): the old index answers queries until then, a
failed build leaves it untouched, and none of its files (faiss files,
``bm25s/``, ``shards/``, a tuned ``fusion.json``) survive the swap.

The one build that writes in place is a sharded one (``--shard-papers``) into
a new directory or into the ``shards/`` a killed run of it left: that is what
makes it resumable.
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


def _entries(out: Path) -> list[str]:
    return sorted(p.name for p in out.iterdir()) if out.is_dir() else []


def _is_index_dir(out: Path, entries: list[str]) -> bool:
    """A finished index (manifest) or only the files an index build writes (a killed build's leftovers)."""
    return (out / MANIFEST).is_file() or set(entries) <= INDEX_FILES


def check_index_out(out: Path, *, overwrite: bool = False, resumable: bool = False) -> bool:
    """Refuse what `index_out_dir` would refuse, before any model is loaded; True when the build runs in place.

    Raises `OutputError` (an input error: the CLI prints it and exits 2) for an
    existing index without `overwrite`, for a non-empty directory that holds
    other files than an index's (even with `overwrite`), for a path that is a
    file, and for symbolic links inside `out`.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise OutputError(f"{out}: exists and is not a directory")
    refuse_links(out)
    entries = _entries(out)
    killed_shards = not (out / MANIFEST).exists() and (out / "shards").is_dir() and set(entries) <= INDEX_FILES
    if resumable and not overwrite and (not entries or killed_shards):
        return True
    if entries and not overwrite:
        held = "an index" if (out / MANIFEST).is_file() else f"files ({', '.join(entries[:4])})"
        raise OutputError(f"{out}: already holds {held}; pass --overwrite to replace it")
    if entries and not _is_index_dir(out, entries):
        foreign = [name for name in entries if name not in INDEX_FILES]
        raise OutputError(f"{out}: holds files an index build did not write ({', '.join(foreign[:4])}); "
                          "not replacing them (choose another --out)")
    return False


@contextmanager
def index_out_dir(out: Path, *, overwrite: bool = False, resumable: bool = False) -> Iterator[Path]:
    """Yield the directory to build the index in: `out` itself (a resumable sharded build) or a staged one.

    A staged directory is published as `out` when the block ends without an
    error, replacing what `out` held; on an error it is removed and `out` is
    untouched. Refusals are `check_index_out`'s.
    """
    out = Path(out)
    if check_index_out(out, overwrite=overwrite, resumable=resumable):
        with output_lock(out):
            out.mkdir(parents=True, exist_ok=True)
            yield out
        return
    with staged_dir(out, overwrite=overwrite, replaceable=lambda _: True) as stage:
        yield stage
