"""`return_freed_memory`: large blocks freed by a stage leave the process (defect 15, demo memory)."""

import subprocess
import sys

import pytest

from sciembed.ioutil.memory import return_freed_memory

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
