"""The package import graph of `sciembed` (which top-level package imports which), from the source with `ast`.

    python benchmarks/import_graph.py [--src src] [--label after] [--out benchmarks/results/import_graph.json]

Every import counts, including those inside functions (lazy imports are still
dependencies). Prints each package's imports and the cycles between packages.
"""

from __future__ import annotations

import argparse
import ast
import json
from collections import defaultdict
from pathlib import Path


def package_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "sciembed" and len(parts) > 1 else None


def module_name(path: Path, src: Path) -> str:
    rel = path.relative_to(src).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path, src: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    this = module_name(path, src)
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = this.split(".")[: -node.level] if path.name != "__init__.py" else this.split(".")[
                    : len(this.split(".")) - node.level + 1]
                out.add(".".join([*base, node.module] if node.module else base))
            elif node.module:
                out.add(node.module)
                out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def graph(src: Path) -> dict[str, dict[str, list[str]]]:
    """package -> imported package -> the modules of `package` that import it."""
    edges: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for path in sorted((src / "sciembed").rglob("*.py")):
        mod = module_name(path, src)
        pkg = package_of(mod) if "." in mod else None
        if pkg is None or pkg.endswith(".py"):
            continue
        for target in imports_of(path, src):
            other = package_of(target)
            known = other and ((src / "sciembed" / other).is_dir() or (src / "sciembed" / f"{other}.py").exists())
            if known and other != pkg:
                edges[pkg][other].add(mod)
    return {p: {o: sorted(m) for o, m in sorted(t.items())} for p, t in sorted(edges.items())}


def cycles(g: dict[str, dict[str, list[str]]]) -> list[tuple[str, str]]:
    return sorted((a, b) for a in g for b in g[a] if a < b and a in g.get(b, {}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--src", type=Path, default=Path("src"))
    parser.add_argument("--label", default="current")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/import_graph.json"))
    args = parser.parse_args()
    g = graph(args.src)
    data = json.loads(args.out.read_text()) if args.out.is_file() else {}
    data[args.label] = {"graph": {p: sorted(t) for p, t in g.items()}, "edges": g, "cycles": cycles(g)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, indent=1) + "\n")
    print(f"# {args.label}")
    for pkg, targets in g.items():
        print(f"{pkg:12s} -> {', '.join(targets)}")
    print("cycles:", ", ".join(f"{a}<->{b}" for a, b in cycles(g)) or "none")


if __name__ == "__main__":
    main()
