"""Encoding shards on a Ray cluster with Ray Data: tasks cut each shard's views into batches, an actor pool
encodes them, the driver writes a shard once it holds each of its batches exactly once. See docs/encode.md,
"On a Ray cluster"."""

from __future__ import annotations

import functools
import os
import pickle
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from sciembed.index.encode.batches import Shard, ViewRow, ViewSpec, encode_batch, shard_batches
from sciembed.index.encode.store import write_shard
from sciembed.ioutil.ray_cluster import connect, import_ray

BATCHES_PER_CALL = 4  # encode batches handed to an actor per call: amortises the call, keeps actors fed


@dataclass(frozen=True)
class CrashOnce:
    """Test hook: the actor that first meets a batch of `shard` exits (like a killed worker), once per marker."""

    shard: int
    marker: str


def quiet_data_context() -> None:
    """Our progress bar, not Ray Data's (several bars and execution plans on stderr)."""
    from ray.data import DataContext

    context = DataContext.get_current()
    for name, value in (("enable_progress_bars", False), ("print_on_execution_start", False)):
        if hasattr(context, name):
            setattr(context, name, value)


def cut_shard(row: dict[str, Any], *, papers_path: str, spec: ViewSpec, batch_size: int) -> list[dict[str, Any]]:
    """A shard's views in length-sorted batches, one output row per batch (one empty batch if none)."""
    shard = Shard(int(row["number"]), int(row["start"]), int(row["end"]))
    batches, info = shard_batches(papers_path, shard, spec, batch_size)
    return [{"number": shard.number, "start": shard.start, "end": shard.end, "batch": i, "batches": len(batches),
             "info": pickle.dumps(info), "views": pickle.dumps(batch)} for i, batch in enumerate(batches)]


class EncodeActor:
    """Holds one encoder; refuses to run when its weights differ from the driver's (another checkpoint on a node)."""

    def __init__(self, load: dict[str, Any], fingerprint: str, threads: int, crash: CrashOnce | None = None) -> None:
        import torch

        from sciembed.models import load_encoder

        if load.get("device") in (None, "cpu"):
            torch.set_num_threads(max(1, threads))
        self.encoder = load_encoder(**load)
        if self.encoder.fingerprint != fingerprint:
            raise RuntimeError(f"worker {os.uname().nodename}: encoder fingerprint {self.encoder.fingerprint} differs "
                               f"from the driver's {fingerprint} (a different model at the same path?)")
        self.crash = crash

    def __call__(self, batch: dict[str, np.ndarray]) -> dict[str, Any]:
        vectors, views = [], []
        for number, payload in zip(batch["number"], batch["views"], strict=True):
            rows: list[ViewRow] = pickle.loads(payload)
            self._maybe_crash(int(number))
            vectors.append(encode_batch(self.encoder, rows).astype(np.float32).tobytes())
            views.append(pickle.dumps([replace(r, text="") for r in rows]))  # texts need not travel back
        return {**{k: batch[k] for k in ("number", "start", "end", "batch", "batches", "info")},
                "views": np.array(views, dtype=object), "vectors": np.array(vectors, dtype=object)}

    def _maybe_crash(self, number: int) -> None:
        if self.crash is not None and number == self.crash.shard:
            try:
                descriptor = os.open(self.crash.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.close(descriptor)
            os._exit(1)


def run_on_ray(address: str, papers_path: Path, out: Path, shards: list[Shard], spec: ViewSpec, load: dict[str, Any],
               fingerprint: str, dim: int, batch_size: int, base: dict[str, Any], advance: Callable[[int], None], *,
               actors: int = 0, cpus_per_actor: float = 1.0, crash: CrashOnce | None = None) -> dict[str, Any]:
    """Encode and write `shards` on the cluster; returns how (actors, GPUs) for the manifest."""
    ray = import_ray()
    started = connect(address)
    try:
        quiet_data_context()
        gpus = int(ray.cluster_resources().get("GPU", 0))
        use_gpu = gpus > 0 and load.get("device") != "cpu"
        count = actors or (gpus if use_gpu else max(1, int(ray.cluster_resources().get("CPU", 1) // cpus_per_actor)))
        load = {**load, "device": "cuda" if use_gpu else "cpu"}
        resources = {"num_gpus": 1} if use_gpu else {"num_cpus": cpus_per_actor}
        if shards:
            items = [{"number": s.number, "start": s.start, "end": s.end} for s in shards]
            dataset = ray.data.from_items(items, override_num_blocks=len(items))
            cut = functools.partial(cut_shard, papers_path=str(papers_path), spec=spec, batch_size=batch_size)
            dataset = dataset.flat_map(cut, num_cpus=0)  # light: must never wait behind actors that hold every CPU
            dataset = dataset.map_batches(EncodeActor, batch_size=BATCHES_PER_CALL, batch_format="numpy",
                                          compute=ray.data.ActorPoolStrategy(size=count),
                                          fn_constructor_kwargs={"load": load, "fingerprint": fingerprint,
                                                                 "threads": max(1, int(cpus_per_actor)),
                                                                 "crash": crash}, **resources)
            _write_as_complete(dataset, out, dim, base, advance)
        return {"address": address, "actors": count, "gpu": use_gpu,
                "cpus_per_actor": None if use_gpu else cpus_per_actor}
    finally:
        if started:
            ray.shutdown()


def _write_as_complete(dataset: Any, out: Path, dim: int, base: dict[str, Any], advance: Callable[[int], None]) -> None:
    """Collect encoded batches per shard; write each shard when all of its batches are back, exactly once."""
    pending: dict[int, dict[int, tuple[list[ViewRow], np.ndarray]]] = {}
    for batch in dataset.iter_batches(batch_size=None, batch_format="numpy"):
        for i in range(len(batch["number"])):
            number, part = int(batch["number"][i]), int(batch["batch"][i])
            rows: list[ViewRow] = pickle.loads(batch["views"][i])
            vectors = np.frombuffer(batch["vectors"][i], dtype=np.float32).reshape(len(rows), dim)
            parts = pending.setdefault(number, {})
            if part in parts:
                raise RuntimeError(f"shard {number}: batch {part} came back twice")
            parts[part] = (rows, vectors)
            if len(parts) == int(batch["batches"][i]):
                shard = Shard(number, int(batch["start"][i]), int(batch["end"][i]))
                ordered = [parts[k] for k in sorted(parts)]
                write_shard(out, shard, [r for rs, _ in ordered for r in rs], np.concatenate([v for _, v in ordered]),
                            {**base, **pickle.loads(batch["info"][i])})
                del pending[number]
                advance(shard.end - shard.start)
    if pending:
        raise RuntimeError(f"Ray Data ended with shards {sorted(pending)} incomplete")
