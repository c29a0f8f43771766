"""A benchmark's own server process: a free local port, and waiting until it answers (or has died)."""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.error
import urllib.request


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_up(url: str, server: subprocess.Popen, path: str = "/health", limit: float = 1800,
            poll_s: float = 0.5) -> float:
    """Seconds until ``GET url+path`` answers 200; RuntimeError (with the server's stderr tail, when piped)
    if the server exits first or `limit` passes."""
    started = time.perf_counter()
    while time.perf_counter() - started < limit:
        if server.poll() is not None:
            err = server.stderr.read() if server.stderr is not None else ""
            err = err.decode("utf-8", "replace") if isinstance(err, bytes) else err
            raise RuntimeError(f"server exited with {server.returncode}: {err[-2000:]}")
        try:
            with urllib.request.urlopen(url + path, timeout=2) as answer:
                if answer.status == 200:
                    return time.perf_counter() - started
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(poll_s)
    raise RuntimeError(f"{url} did not come up in {limit:g} s")
