"""`--index`: one faiss factory string for the kind of a dense index and its settings.

    auto                                  flat, HNSW or IVF-PQ from the number of vectors (`ann.auto_kind`)
    Flat                                  exact inner product / L2
    HNSW32  HNSW32,Flat  HNSW32,SQ8       a graph, 32 links per node, over float32 / 8-bit vectors
    IVF1024,PQ48  IVF1024,PQ48,RFlat  IVF1024,PQ48,Refine(SQ8)
                                          1024 lists of 48-byte PQ codes, re-ranked over exact / SQ8 vectors
    hnsw  ivf-pq                          the kind with every setting chosen from the collection size

The settings faiss keeps outside its factory string follow as ``name=value`` parts, spelled as faiss's
`ParameterSpace` spells them: ``efSearch``, ``efConstruction`` (HNSW), ``nprobe`` and ``k_factor`` (IVF-PQ),
e.g. ``HNSW32,efSearch=128`` or ``IVF4096,PQ96,Refine(SQ8),nprobe=64,k_factor=16``.
"""

from __future__ import annotations

import re
from typing import Any

from sciembed.errors import SciembedInputError

KNOBS = {"efSearch": "ef_search", "efConstruction": "ef_construction", "nprobe": "nprobe",
         "k_factor": "refine_k_factor"}
SHORT_KINDS = {"flat": "flat", "hnsw": "hnsw", "ivf-pq": "ivf-pq", "auto": "auto"}
REFINE_PARTS = {"RFlat": "flat", "Refine(Flat)": "flat", "Refine(SQ8)": "sq8"}
GRAMMAR = ("auto | Flat | HNSW<M>[,Flat|,SQ8] | IVF<nlist>,PQ<m>[,RFlat|,Refine(SQ8)] (then optional "
           "efSearch=, efConstruction=, nprobe=, k_factor=; e.g. HNSW32,efSearch=128)")


class IndexFactoryError(SciembedInputError, ValueError):
    """An `--index` string this module does not read."""


def parse_index_factory(text: str) -> tuple[str, dict[str, Any]]:
    """(index kind, `ann.default_params` overrides) of an `--index` string; `IndexFactoryError` names the grammar."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    knobs = [p for p in parts if "=" in p]
    shape = [p for p in parts if "=" not in p]
    overrides: dict[str, Any] = {}
    for knob in knobs:
        name, _, value = knob.partition("=")
        if name.strip() not in KNOBS or not value.strip().isdigit() or int(value) < 1:
            raise IndexFactoryError(f"--index {text!r}: {knob!r} is not one of efSearch, efConstruction, nprobe, "
                                    f"k_factor with a positive integer; expected {GRAMMAR}")
        overrides[KNOBS[name.strip()]] = int(value)
    kind = _kind(text, shape, overrides)
    return kind, overrides


def _kind(text: str, shape: list[str], overrides: dict[str, Any]) -> str:
    """The kind of `shape` (the factory parts), its sizes written into `overrides`."""
    bad = IndexFactoryError(f"--index {text!r}: expected {GRAMMAR}")
    if len(shape) == 1 and shape[0].lower() in SHORT_KINDS:
        return SHORT_KINDS[shape[0].lower()]
    if not shape:
        raise bad
    if hnsw := re.fullmatch(r"HNSW(\d*)", shape[0]):
        if len(shape) > 2 or (len(shape) == 2 and shape[1] not in ("Flat", "SQ8")):
            raise bad
        overrides.update(hnsw_m=int(hnsw.group(1) or 32), hnsw_storage=shape[1].lower() if len(shape) == 2 else "flat")
        return "hnsw"
    ivf = re.fullmatch(r"IVF(\d+)", shape[0])
    pq = re.fullmatch(r"PQ(\d+)(?:x8)?", shape[1]) if len(shape) > 1 else None
    if ivf and pq and len(shape) <= 3 and (len(shape) == 2 or shape[2] in REFINE_PARTS):
        overrides.update(nlist=int(ivf.group(1)), pq_m=int(pq.group(1)),
                         refine=REFINE_PARTS[shape[2]] if len(shape) == 3 else "none")
        return "ivf-pq"
    raise bad
