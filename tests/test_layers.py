"""No package imports one above it (every import counts, lazy ones inside functions too).

The layers, lowest first; a package may import its own layer and those below.
`training` may use `evaluation` only through the package's public names
(`sciembed.evaluation`, what validation during training needs), never its modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "sciembed"
LAYERS = [
    {"ioutil"},
    {"papers", "llm", "models"},
    {"corpus", "views", "synth"},
    {"summaries", "encode"},
    {"retrieval"},
    {"evaluation"},
    {"training"},
    {"experiments", "server"},
    {"cli"},
]
RANK = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}
NARROW = {("training", "evaluation"): {"sciembed.evaluation"}}  # (importer, imported) -> the only modules allowed


def _imports(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append((node.lineno, node.module))
    return out


def test_every_package_has_a_layer() -> None:
    packages = {p.name for p in SRC.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(RANK), f"packages without a layer: {sorted(packages - set(RANK))}"


def test_no_package_imports_one_above_it() -> None:
    problems = []
    for path in sorted(SRC.rglob("*.py")):
        parts = path.relative_to(SRC).parts
        if len(parts) < 2:
            continue
        pkg = parts[0]
        for line, module in _imports(path):
            names = module.split(".")
            if names[0] != "sciembed" or len(names) < 2 or names[1] not in RANK or names[1] == pkg:
                continue
            other = names[1]
            allowed = NARROW.get((pkg, other))
            if RANK[other] > RANK[pkg] or (allowed is not None and module not in allowed):
                problems.append(f"{path.relative_to(SRC.parent)}:{line}: {pkg} imports {module}")
    assert not problems, "\n".join(problems)
