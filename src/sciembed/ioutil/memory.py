"""Memory of this process: peak and current resident size, and glibc settings that give freed memory back.

VmHWM (`/proc/self/status`) starts afresh at exec; `ru_maxrss` would carry a parent's peak over fork + exec.
"""

from __future__ import annotations

import os
import resource


def _status_mb(key: str) -> int | None:
    """A kB line of `/proc/self/status` ("VmHWM", "VmRSS") in MB; None where there is no such file or line."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return None


def peak_mb() -> int:
    peak = _status_mb("VmHWM")
    return peak if peak is not None else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024  # kB on Linux


def reset_peak() -> bool:
    """Start a new peak measurement (writes 5 to /proc/self/clear_refs); False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def current_mb() -> int:
    return _status_mb("VmRSS") or 0


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter numbers (malloc.h)
M_ARENA_MAX = -8
LARGE_BLOCK_BYTES = 128 * 1024


def _glibc():
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        return libc if libc is not None and hasattr(libc, "mallopt") else None
    except OSError:
        return None


def limit_malloc_arenas(arenas: int = 2) -> bool:
    """Cap glibc's malloc arenas (default 8 per core; freed memory stays scattered over the threads' arenas), unless
    $MALLOC_ARENA_MAX says; False elsewhere. Call before threads start. `index serve` writing 600 papers: 142 MB
    of growth instead of 162 (benchmarks/serve_arenas.py)."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(M_ARENA_MAX, arenas) == 1)


def return_freed_memory() -> bool:
    """Make freed memory leave the process (glibc only; False elsewhere): a fixed 128 KiB mmap threshold keeps
    large blocks (tensors) mmap-backed, unmapped when freed (glibc would raise it and keep them on the heap);
    `malloc_trim` returns what the heap holds. 3 steps of the demo's window recipe: 1.73 → 1.31 GB peak."""
    libc = _glibc()
    if libc is None or not hasattr(libc, "malloc_trim"):  # not glibc (musl, macOS): nothing to do
        return False
    ok = libc.mallopt(M_MMAP_THRESHOLD, LARGE_BLOCK_BYTES) == 1
    libc.malloc_trim(0)
    return ok
