"""`return_freed_memory`: large blocks freed by a stage leave the process (defect 15, demo memory)."""

import os
import subprocess
import sys

import pytest

from sciembed.ioutil.memory import limit_malloc_arenas, return_freed_memory

# Raise glibc's dynamic mmap threshold (free one 8 MB block), then allocate and free 300 MB in
# 1 MB blocks interleaved with small live objects, as a training step does with activations.
SCRIPT = """
import sys
import numpy as np
from sciembed.ioutil.memory import current_mb, return_freed_memory
if sys.argv[1] == "on":
    assert return_freed_memory()
big = np.ones(8 << 20, dtype=np.uint8); del big
before = current_mb()
blocks, keep = [], []
for _ in range(300):
    blocks.append(np.ones(1 << 20, dtype=np.uint8))
    keep.append(bytearray(4096))  # small live blocks between the big ones (malloc, not pymalloc)
del blocks
print(current_mb() - before)
"""


def _retained_mb(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def test_freed_large_blocks_leave_the_process():
    if not return_freed_memory():
        pytest.skip("not glibc: the allocator setting does not apply")
    assert _retained_mb("off") > 200  # the control: glibc's defaults keep the freed blocks resident
    assert _retained_mb("on") < 30  # of 300 MB allocated and freed


# 8 threads alive at once, each allocating with malloc; then count glibc's arenas (malloc_info's <heap> entries).
ARENAS = """
import ctypes, ctypes.util, sys, threading
from sciembed.ioutil.memory import limit_malloc_arenas
if sys.argv[1] == "on":
    assert limit_malloc_arenas(2)
barrier = threading.Barrier(8)
def work():
    barrier.wait()
    blocks = [bytearray(4096) for _ in range(100)]
    barrier.wait()
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.fopen.restype = ctypes.c_void_p
handle = ctypes.c_void_p(libc.fopen(sys.argv[2].encode(), b"w"))
libc.malloc_info(0, handle)
libc.fclose(handle)
print(open(sys.argv[2]).read().count("<heap nr="))
"""


def _arenas(mode: str, report, env: dict | None = None) -> int:
    out = subprocess.run([sys.executable, "-c", ARENAS, mode, str(report)], capture_output=True, text=True,
                         check=True, env=env)
    return int(out.stdout.strip())


def test_malloc_arenas_capped_for_the_server(tmp_path, monkeypatch):
    if not return_freed_memory():
        pytest.skip("not glibc: the allocator setting does not apply")
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert _arenas("off", tmp_path / "off.xml", dict(os.environ)) >= 8  # the control: an arena per thread
    assert _arenas("on", tmp_path / "on.xml", dict(os.environ)) == 2
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert not limit_malloc_arenas(2)  # the user's own setting wins
