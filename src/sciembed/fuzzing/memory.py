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
