"""Import-graph counts of the core (issue 32): cycles, upward imports between layers, core modules plugins import.

Usage: ``python scripts/import_graph.py [--source DIR]`` (default: this checkout). The graph is grimp's (the one
import-linter checks), with imports under ``if TYPE_CHECKING:`` and inside functions included. Layers are the
``layers`` contract of ``pyproject.toml``; a module of an older flat layout (``--source`` of an old checkout) is
placed by its new path (:data:`gpuhub._moved.MOVED`). A cycle is a group of modules that reach each other (a
strongly connected component of more than one module).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import grimp
import tomllib

ROOT = Path(__file__).resolve().parents[1]


def config() -> dict[str, object]:
    """The ``[tool.importlinter]`` table of pyproject.toml."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return data["tool"]["importlinter"]  # type: ignore[no-any-return]


def layer_of() -> dict[str, int]:
    """``gpuhub.<tail>`` -> rank of its layer (0: the top)."""
    contract = next(c for c in config()["contracts"] if c["type"] == "layers")  # type: ignore[attr-defined]
    ranks = {}
    for rank, layer in enumerate(contract["layers"]):
        for tail in layer.split("#")[0].replace(":", "|").split("|"):
            ranks["gpuhub." + tail.strip()] = rank
    return ranks


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def measure(source: Path) -> dict[str, object]:
    """The counts for the checkout at ``source`` (its ``gpuhub`` and every ``plugins/*/gpuhub_*`` package)."""
    packages = sorted((source / "plugins").glob("*/gpuhub_*/__init__.py"))
    sys.path[:0] = [str(source), *(str(p.parent.parent) for p in packages)]
    plugins = [p.parent.name for p in packages]
    graph = grimp.build_graph("gpuhub", *plugins, cache_dir=None)
    core = {m for m in graph.modules if m == "gpuhub" or m.startswith("gpuhub.")}
    edges = {m: {i for i in graph.find_modules_directly_imported_by(m) if i in core} for m in core}
    sys.path.insert(0, str(ROOT))
    from gpuhub._moved import MOVED

    ranks = layer_of()

    def rank(module: str) -> int | None:
        module = MOVED.get(module, module)
        parts = module.split(".")
        for n in range(len(parts), 1, -1):
            if ".".join(parts[:n]) in ranks:
                return ranks[".".join(parts[:n])]
        return None

    upward = sorted((a, b) for a, bs in edges.items() for b in bs
                    if rank(a) is not None and rank(b) is not None and rank(a) > rank(b))  # type: ignore[operator]
    plugin_imports = sorted({i for m in graph.modules if m.split(".")[0] in plugins
                             for i in graph.find_modules_directly_imported_by(m) if i in core})
    return {"cycles": cycles(edges), "upward": upward, "plugin_imports": plugin_imports}


def main() -> None:
    """Print the counts, then each cycle, upward import and imported core module."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, default=ROOT, help="checkout to measure (default: this one)")
    found = measure(parser.parse_args().source.resolve())
    cyc, up, used = found["cycles"], found["upward"], found["plugin_imports"]
    print(f"cycles: {len(cyc)}; upward imports: {len(up)}; core modules imported by plugins: {len(used)}")  # type: ignore[arg-type]
    for group in cyc:  # type: ignore[attr-defined]
        print(f"  cycle ({len(group)} modules): {' '.join(group)}")
    for a, b in up:  # type: ignore[attr-defined]
        print(f"  upward: {a} -> {b}")
    print(f"  plugins import: {' '.join(used)}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
