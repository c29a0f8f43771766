"""`atomic_file`: the one temp-file + fsync + `os.replace` writer that every streaming output goes through."""

from __future__ import annotations

import os
import stat

import pytest

from sciembed.ioutil.atomic import atomic_file, write_jsonl_atomic, write_text_atomic


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "out.jsonl"
    write_text_atomic(path, "old\n")
    with pytest.raises(RuntimeError), atomic_file(path) as handle:
        handle.write("half of the new")
        raise RuntimeError("killed mid-write")
    assert path.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_binary_and_text_outputs_get_the_usual_permissions(tmp_path):
    with atomic_file(tmp_path / "v.npy", binary=True) as handle:
        handle.write(b"\x00\x01")
    write_text_atomic(tmp_path / "m.json", "{}\n")
    umask = os.umask(0o022)
    os.umask(umask)
    for name in ("v.npy", "m.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0600
    assert (tmp_path / "v.npy").read_bytes() == b"\x00\x01"


def test_jsonl_is_streamed_whole_and_counted(tmp_path):
    path = tmp_path / "r.jsonl"
    assert write_jsonl_atomic(path, ({"id": i, "t": "é"} for i in range(3))) == 3
    assert path.read_text(encoding="utf-8").splitlines() == [f'{{"id": {i}, "t": "é"}}' for i in range(3)]

    def broken():
        yield {"id": 9}
        raise ValueError("generator fails half-way")

    with pytest.raises(ValueError):
        write_jsonl_atomic(path, broken())
    assert path.read_text(encoding="utf-8").count("\n") == 3  # the earlier file, untouched
