"""Peak resident memory of this process.

`/proc/self/status` VmHWM belongs to the process image, so it starts afresh at
exec; `getrusage(...).ru_maxrss` carries the parent's peak over a fork + exec
and would blame a child for its parent's memory.
"""

from __future__ import annotations

import resource


def peak_mb() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024  # kB on Linux


def reset_peak() -> bool:
    """Start a new peak measurement (writes 5 to /proc/self/clear_refs); False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
        return True
    except OSError:
        return False


def current_mb() -> int:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0
