"""The memory estimate of every paper config on an 80 GB CUDA card (arithmetic, not a measurement).

For each shipped config with a paper base model (SciBERT, ModernBERT, SciDeBERTa) the estimator
(`sciembed.training.memory_estimate`, what ``sciembed train … --dry-run --estimate-for cuda
--device-memory 80GB`` prints) gives the peak with and without gradient checkpointing; configs changed
by issue 20 are also estimated as they were before. Writes a JSON and prints a markdown table.

    .venv/bin/python benchmarks/paper_config_memory.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "paper_config_memory.json"
CARD = 80 * 10**9
PAPER_BASES = ("allenai/scibert_scivocab_uncased", "answerdotai/ModernBERT-base", "KISTI-AI/Scideberta-full")
BEFORE = {  # the settings issue 20 changed, as they were
    "jepa-scibert.yaml": {"training.gradient_checkpointing": False},
    "jepa-lambda-0.yaml": {"training.gradient_checkpointing": False},
    "jepa-lambda-0.001.yaml": {"training.gradient_checkpointing": False},
    "jepa-lambda-0.0025.yaml": {"training.gradient_checkpointing": False},
    "jepa-lambda-0.005.yaml": {"training.gradient_checkpointing": False},
    "infonce-scibert.yaml": {"training.gradient_checkpointing": False},
    "window-modernbert.yaml": {"training.mini_batch_size": 128},
    "window-modernbert-ta_ta.yaml": {"training.mini_batch_size": 128},
}


def main() -> None:
    for key, value in (("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1")):
        os.environ.setdefault(key, value)
    from sciembed.training.config import load_config
    from sciembed.training.memory_estimate import estimate, human_bytes
    from sciembed.training.model_architecture import read_architecture
    from sciembed.training.recipes import recipe_config

    architectures = {base: read_architecture(base) for base in PAPER_BASES}
    rows = []
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        base = (data.get("model") or {}).get("base")
        if base not in PAPER_BASES:
            continue
        cls = recipe_config(data["recipe"])
        now = estimate(load_config(cls, path), "cuda", architectures[base])
        row = {"config": path.name, "recipe": data["recipe"], "base": base, "texts": now.texts, "seq": now.seq,
               "precision": now.precision, "checkpointing": now.checkpointing, "estimate": now.total(),
               "without_checkpointing": now.total(False), "with_checkpointing": now.total(True),
               "fits_80GB": now.total() <= CARD, "architecture_source": now.architecture.source}
        if path.name in BEFORE:
            before = estimate(load_config(cls, path, BEFORE[path.name]), "cuda", architectures[base])
            row["before"] = {"settings": BEFORE[path.name], "estimate": before.total(),
                             "fits_80GB": before.total() <= CARD}
        rows.append(row)
    RESULTS.write_text(json.dumps({"what": "estimated peak CUDA memory per paper config (bf16 autocast, AdamW)",
                                   "card_bytes": CARD, "configs": rows}, indent=2) + "\n")
    print("| config | texts × tokens with gradients | checkpointing | estimate | fits 80 GB | before issue 20 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for r in rows:
        before = r.get("before")
        was = (f"{', '.join(f'{k}: {v}' for k, v in before['settings'].items())}: {human_bytes(before['estimate'])}"
               f" ({'fits' if before['fits_80GB'] else 'does not fit'})") if before else "unchanged"
        print(f"| `{r['config']}` | {r['texts']} × {r['seq']} | {'on' if r['checkpointing'] else 'off'} | "
              f"{human_bytes(r['estimate'])} (off {human_bytes(r['without_checkpointing'])}, on "
              f"{human_bytes(r['with_checkpointing'])}) | {'yes' if r['fits_80GB'] else 'no'} | {was} |")


if __name__ == "__main__":
    main()
