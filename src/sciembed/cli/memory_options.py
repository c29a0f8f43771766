"""The memory-check options of `sciembed train` (`--device-memory`, `--estimate-for`, `--force`) and their parser.

Declare them as parameters with these ``Annotated`` types::

    def command(..., device_memory: DeviceMemory = None, estimate_for: EstimateFor = "auto",
                force: ForceMemory = False): ...
"""

from __future__ import annotations

import re
from typing import Annotated

import typer

_PANEL = "Memory check"
UNITS = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
         "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_SIZE = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?|\.[0-9]+)\s*([a-z]+)\s*$", re.IGNORECASE)


def parse_memory_size(value: str | None) -> int | None:
    """``80GB``, ``24GiB``, ``81920MB`` as bytes (GB = 10⁹, GiB = 2³⁰); anything else is a usage error."""
    if value is None:
        return None
    match = _SIZE.match(value)
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in UNITS:
        raise typer.BadParameter(
            f"{value!r}: expected a positive size with a unit, e.g. 80GB, 24GiB or 81920MB "
            "(units: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)"
        )
    size = float(match.group(1)) * UNITS[unit]
    if not size >= 1:
        raise typer.BadParameter(f"{value!r}: the device memory must be positive")
    return int(size)


DeviceMemory = Annotated[str | None, typer.Option(
    "--device-memory", rich_help_panel=_PANEL,
    help="Memory the run may use, e.g. 80GB, 24GiB, 81920MB (default: the visible CUDA device's total, "
         "else the host's RAM). A run estimated above it stops before loading the model.")]
EstimateFor = Annotated[str, typer.Option(
    "--estimate-for", rich_help_panel=_PANEL,
    help="auto | cuda | cpu | a100 | h100 | h200 | l4: the device the estimate assumes (auto: CUDA when "
         "visible, else CPU); a named GPU also sets the memory and prints the run's time on it with --dry-run.")]
ForceMemory = Annotated[bool, typer.Option(
    "--force", rich_help_panel=_PANEL, help="Train even when the memory estimate exceeds the device memory.")]


def check_estimate_for(value: str) -> str:
    from sciembed.training.compute_estimate import DEVICES

    choices = ("auto", "cuda", "cpu", *DEVICES)
    if value not in choices:
        raise typer.BadParameter(f"--estimate-for {value!r}: expected {', '.join(choices)}")
    return value
