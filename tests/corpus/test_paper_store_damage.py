"""Issue 33, defect 11: killed builds leave no lasting partial files; a damaged store is rebuilt, a damaged
``papers.parquet`` is one error naming the file and the fix."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

from sciembed.corpus.paper_store import STORE_FILE, PaperStore, open_store, store_dir
from sciembed.papers.io import DamagedCorpusError, write_parquet
from sciembed.papers.model import Paper, Section


def _papers(n: int) -> list[Paper]:
    return [Paper(f"p{i}", f"Title {i}", f"Abstract {i}.", (Section("Intro", f"body {i} " * 200),))
            for i in range(n)]


def _corpus(tmp_path, n: int = 30):
    root = tmp_path / "corpus"
    root.mkdir()
    write_parquet(_papers(n), root / "papers.parquet")
    return root


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_partials_of_dead_runs_are_removed_by_the_next_run(tmp_path):
    root = _corpus(tmp_path)
    folder = store_dir(root)
    old = time.time() - 3600
    stale = folder / f".{STORE_FILE}.{_dead_pid()}.partial"
    unrelated = folder / f".{STORE_FILE}.notes"  # not a partial's name: left alone
    live = folder / f".{STORE_FILE}.{os.getppid()}.partial"  # a running process's file is never touched
    for path in (stale, unrelated, live):
        path.write_bytes(b"x" * 20_000)
        os.utime(path, (old, old))
    assert [p.id for p in open_store(root).papers([0, 29])] == ["p0", "p29"]
    assert not stale.exists() and unrelated.exists() and live.exists()
    recent = folder / f".{STORE_FILE}.{_dead_pid()}.partial"  # untouched for less than 5 minutes: kept
    recent.write_bytes(b"x")
    open_store(root)
    assert recent.exists()


@pytest.mark.parametrize("damage", ["same_size", "truncated"])
def test_a_damaged_store_is_rebuilt_not_used(tmp_path, damage):
    root = _corpus(tmp_path)
    target = open_store(root).path
    stat = target.stat()
    data = bytearray(target.read_bytes())
    if damage == "same_size":
        middle = len(data) // 2
        data[middle:middle + 4096] = b"\0" * 4096  # the text of some papers zeroed, the size unchanged
    else:
        data = data[: len(data) // 2]
    target.write_bytes(bytes(data))
    os.utime(target, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # even with the mtime put back
    store = open_store(root)
    assert [p.id for p in store.papers(range(30))] == [f"p{i}" for i in range(30)]
    assert all(p.sections[0].text.startswith(f"body {i} ") for i, p in enumerate(PaperStore(store.path).papers(
        range(30))))


def test_a_damaged_papers_parquet_names_the_file_and_the_fix(tmp_path):
    root = _corpus(tmp_path, 3000)
    parquet = root / "papers.parquet"
    column = pq.ParquetFile(parquet).metadata.row_group(0).column(3)
    with open(parquet, "r+b") as f:  # the first data page's header overwritten
        f.seek(column.data_page_offset)
        f.write(b"\xff" * 64)
    with pytest.raises(DamagedCorpusError) as caught:
        open_store(root)
    message = str(caught.value)
    assert str(parquet) in message and "sciembed corpus ingest" in message
    assert not list(store_dir(root).glob(".*.partial"))


@pytest.mark.parametrize("command", [["corpus", "stats"], ["index", "build", "--model", "bm25", "--out", "IX"],
                                     ["encode", "-o", "VEC", "--no-progress"]])
def test_commands_reading_a_damaged_papers_parquet_give_one_line(tmp_path, command):
    from typer.testing import CliRunner

    from sciembed.cli.main import app

    root = _corpus(tmp_path, 3000)
    (root / "manifest.json").write_text('{"schema_version": 1, "kind": "ingested"}')
    parquet = root / "papers.parquet"
    column = pq.ParquetFile(parquet).metadata.row_group(0).column(3)
    with open(parquet, "r+b") as f:
        f.seek(column.data_page_offset)
        f.write(b"\xff" * 64)
    args = [a.replace("IX", str(tmp_path / "ix")).replace("VEC", str(tmp_path / "vec")) for a in command]
    result = CliRunner().invoke(app, [*args[:2], str(root), *args[2:]] if command[0] != "encode" else
                                [args[0], str(root), *args[1:]])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert str(parquet) in result.output and "corpus ingest" in result.output
