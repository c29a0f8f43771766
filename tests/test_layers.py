"""No package imports one above it, and no modules import each other in a circle.

Every import counts: lazy ones inside functions and those under ``TYPE_CHECKING`` too.
The layers, lowest first; a package may import its own layer and those below.
`training` may use `evaluation` only through the package's public names
(`sciembed.evaluation`, what validation during training needs), never its modules.
Packages of one layer may import each other in one direction only: `NEVER` closes
the other one for every such pair, so no two of them can form a circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "sciembed"
LAYERS = [
    {"ioutil"},
    {"papers", "llm", "models"},
    {"corpus", "views", "synth"},
    {"summaries"},
    {"retrieval"},
    {"index"},
    {"search"},
    {"evaluation"},
    {"training"},
    {"experiments", "server"},
    {"cli"},
]
RANK = {pkg: i for i, layer in enumerate(LAYERS) for pkg in layer}
NARROW = {("training", "evaluation"): {"sciembed.evaluation"}}  # (importer, imported) -> the only modules allowed
NEVER = {  # (importer, imported) of one layer: never
    ("llm", "models"), ("llm", "papers"), ("papers", "llm"), ("papers", "models"), ("models", "papers"),
    ("corpus", "views"), ("views", "corpus"), ("corpus", "synth"), ("synth", "corpus"),
    ("views", "synth"), ("synth", "views"),
    ("experiments", "server"), ("server", "experiments"),
}


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


def test_never_list_closes_every_same_layer_pair() -> None:
    open_pairs = [f"{a} <-> {b}" for layer in LAYERS for a in sorted(layer) for b in sorted(layer)
                  if a < b and (a, b) not in NEVER and (b, a) not in NEVER]
    assert not open_pairs, f"same-layer pairs open both ways (add one direction to NEVER): {open_pairs}"
    assert all(RANK[a] == RANK[b] for a, b in NEVER), "NEVER names only packages of one layer"


def test_same_layer_packages_keep_the_never_list() -> None:
    problems = [f"{module} imports {target}" for module, targets in _module_graph().items() for target in targets
                if (module.split(".")[0], target.split(".")[0]) in NEVER]
    assert not problems, "\n".join(problems)


def test_no_module_circles() -> None:
    circles = _circles(_module_graph())
    assert not circles, "modules importing each other in a circle: " + "; ".join(
        " <-> ".join(sorted(circle)) for circle in circles)


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _module_graph() -> dict[str, set[str]]:
    """Module -> the sciembed modules it imports ("papers.sections"; a package is its __init__)."""
    paths = {_module_name(path): path for path in SRC.rglob("*.py")}

    def resolve(name: str) -> str | None:
        while name and name not in paths:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for module, path in paths.items():
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                continue
            targets |= {resolve(name.removeprefix("sciembed.")) for name in names if name.startswith("sciembed.")}
        graph[module] = targets - {None, module, ""}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    circles.append(component)
    return circles
