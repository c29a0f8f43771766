"""Runs recipes one after the other in one launch, for `test_distributed.py`.

    python tests/training/ddp_driver.py SPEC.json OUT                       # one process
    torchrun --standalone --nproc_per_node 2 tests/training/ddp_driver.py SPEC.json OUT

SPEC maps a recipe name to ``{"corpus": path, "overrides": {config key: value}}``; each recipe's run
directory is ``OUT/<recipe>``. Everything `train` says (batch split, negatives) goes to stdout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from sciembed.training import load_config, train
from sciembed.training.recipes import recipe_config


def main(spec_path: str, out: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    for recipe, run in spec.items():
        config = load_config(recipe_config(recipe), None, run["overrides"])
        train(recipe, config, Path(run["corpus"]), Path(out) / recipe, say=lambda line: print(line, flush=True))


if __name__ == "__main__":
    main(*sys.argv[1:3])
