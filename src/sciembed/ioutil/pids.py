"""Files and folders named after the process that made them: is that process gone?"""

from __future__ import annotations

import os


def process_alive(pid: int) -> bool:
    """Whether process `pid` runs on this machine (another user's process counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def left_by_dead_process(pid: str) -> bool:
    """Whether `pid` (as found in a file or folder name) names a process that is neither this one nor running."""
    return pid.isdigit() and int(pid) != os.getpid() and not process_alive(int(pid))
