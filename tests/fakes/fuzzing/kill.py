"""SIGKILL a sciembed command at a random point and classify what it left behind.

A command may leave its output absent, the previous finished output, or a
finished new one; anything else (a directory without a manifest, a manifest
beside an unreadable or miscounted Parquet file) would pass for finished or
lose data, and is reported as "broken".
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq


def run_and_kill(
    args: list[str], out: Path, seed: int, max_delay_s: float = 1.0, timeout_s: float = 120.0,
    ready: Path | None = None,
) -> str:
    """Run `python -m sciembed.cli.main *args`, SIGKILL it a seeded random delay after its work starts.

    Work "starts" when a hidden partial directory appears beside `out` (imports
    are over), or when `ready` exists if given; returns "finished-before-kill"
    when the process ended first, else "killed".
    """
    delay = random.Random(seed).uniform(0.0, max_delay_s)
    proc = subprocess.Popen([sys.executable, "-m", "sciembed.cli.main", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONHASHSEED": "0"})
    deadline = time.monotonic() + timeout_s
    while proc.poll() is None and time.monotonic() < deadline:
        if (ready.exists() if ready is not None else any(out.parent.glob(f".{out.name}.partial-*"))):
            break
        time.sleep(0.02)
    time.sleep(delay)
    if proc.poll() is not None:
        return "finished-before-kill"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return "killed"


def state_of(out: Path) -> str:
    """"absent", "finished" (manifest + readable papers whose row count matches it) or "broken: why"."""
    if not out.exists():
        return "absent"
    manifest_path = out / "manifest.json"
    if not manifest_path.is_file():
        return "broken: no manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text())
        rows = pq.ParquetFile(out / "papers.parquet").metadata.num_rows if (out / "papers.parquet").exists() else 0
    except Exception as err:  # any failure to read is the finding
        return f"broken: {type(err).__name__}: {err}"
    counts = manifest.get("counts", {})
    expected = counts.get("accepted", counts.get("papers"))
    if expected is not None and expected != rows:
        return f"broken: manifest says {expected} papers, papers.parquet holds {rows}"
    return "finished"
