"""The shape of ``builder/``: imports point one way, so each package reads on its own.

Every import between builder modules — at module level or inside a function, since a
lazy import that closes a circle is still a circle — is an edge; any strongly connected
set of two or more modules is a cycle and fails the test, naming the modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

BUILDER = Path(__file__).resolve().parent.parent / "builder"


def _module_name(path: Path) -> str:
    parts = path.relative_to(BUILDER.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in BUILDER.rglob("*.py")}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    tree = ast.parse(path.read_text(), str(path))
    # `if TYPE_CHECKING:` imports name a type a record carries from a layer above (the build
    # report holds release verdicts it never computes): no code runs through them.
    type_only = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
        for stmt in node.body
        for inner in ast.walk(stmt)
    }
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            # `from pkg import mod` imports the submodule; `from mod import name` the module.
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        found.update(t for t in targets if t in known and t != name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components of size > 1 (iterative: no recursion limit)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_cycle_finder_finds_a_planted_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_graph_sees_lazy_and_relative_imports():
    graph = import_graph()
    # build.py imports the stages at module level, and the renderer lazily inside build().
    assert "builder.pipeline.stages" in graph["builder.pipeline.build"]
    assert "builder.render.site" in graph["builder.pipeline.build"]
    assert "builder.trust.registry" in graph["builder.trust.registry_admin"]


def test_no_import_cycles_in_builder():
    assert cycles(import_graph()) == []


def test_no_module_left_in_the_flat_hall():
    """Only the foundations the packages share stay at the top of builder/ (memory.py, the
    malloc policy, is gone: issue 19)."""
    top = sorted(p.stem for p in BUILDER.glob("*.py"))
    assert top == ["__init__", "config", "errors", "strict"]


# The packages from the top down (ARCHITECTURE.md, "Map of builder/"). A module may import
# only from its own package or from packages further down this list: the records and git
# plumbing sit below every stage, the leak scan in its own package, and the renderer gets
# the release pages from the build instead of reaching into release/. ``builder`` itself
# (its __init__: the version) is the floor.
LAYERS = [
    "cli", "demo", "scaffold", "audit", "pipeline", "validate", "release", "render", "leakscan", "report",
    "importers", "bundles", "config", "scoring", "gitrepo", "attest", "timelock", "trust", "strict", "formats", "errors", "builder",
]  # fmt: skip


def _package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    rank = {name: i for i, name in enumerate(LAYERS)}
    found = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            here, there = _package(module), _package(target)
            if here != there and rank[here] >= rank[there]:
                found.append(f"{module} -> {target}")
    return found


def test_every_package_has_a_layer():
    assert sorted({_package(m) for m in import_graph()}) == sorted(LAYERS)


def test_layer_check_finds_a_planted_upward_import():
    assert upward_imports({"builder.scoring.engine": {"builder.render.data"}, "builder.render.data": set()}) == [
        "builder.scoring.engine -> builder.render.data"
    ]
    assert upward_imports({"builder.render.data": {"builder.scoring.engine"}, "builder.scoring.engine": set()}) == []


def test_packages_import_only_downwards():
    """Package-level layering, lazy imports included (a lazy import up is still an arrow up)."""
    assert upward_imports(import_graph()) == []


def test_each_package_docstring_lists_its_modules():
    """A newcomer finds "where is X?" from the package docstrings: each names every module."""
    for init in sorted(BUILDER.rglob("__init__.py")):
        package = init.parent
        modules = [p.stem for p in package.glob("*.py") if p.stem != "__init__"]
        modules += [d.name for d in package.iterdir() if (d / "__init__.py").is_file()]
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        missing = [m for m in modules if f"``{m}``" not in doc]
        assert not missing, f"{init.relative_to(BUILDER.parent)}: its docstring does not list {missing}"
