"""No tcab module imports another that imports it back, no package either,
and each package imports only packages of lower layers (``LAYERS``).

The graph is read from the source with ``ast`` (nothing is imported): an
edge ``a -> b`` for every ``import b`` / ``from b import x`` in ``a``, at
module level or inside a function (a function-level import still closes a
circle when it runs), except under ``if TYPE_CHECKING:``. ``from pkg import
name`` points at ``pkg.name`` when that is a module, else at ``pkg``.

A package is ``tcab.<part>`` (a folder, or a top-level module such as
``tcab.errors``); ``tcab`` itself is the root. The package graph has an
edge ``p -> q`` when any module of ``p`` imports one of ``q``.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "tcab"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for child in node.body for n in ast.walk(child))
    return skipped


def _targets(node: ast.AST, here: str, is_package: bool, modules: set[str]) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "tcab"]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base = here.split(".")
        base = base[: len(base) - node.level + (1 if is_package else 0)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    if source.split(".")[0] != "tcab":
        return []
    return [f"{source}.{a.name}" if f"{source}.{a.name}" in modules else source for a in node.names]


def import_graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(), str(path))
        skipped = _type_checking_nodes(tree)
        edges: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            for target in _targets(node, name, path.name == "__init__.py", set(files)):
                while target not in files and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in files and target != name:
                    edges.add(target)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_imports_of_every_kind() -> None:
    graph = import_graph()
    assert "tcab.arena.engine" in graph["tcab.arena.build"]  # module level
    assert "tcab.runs" in graph["tcab.tasks.real"]  # inside a function
    assert "tcab.templates.render" in graph["tcab.templates"]  # a package's own submodule


def test_a_planted_cycle_is_found() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_module_imports_one_that_imports_it_back() -> None:
    assert cycles(import_graph()) == []


# The allowed layer order, lowest first. A package may import packages of
# lower layers only: never one of its own layer, never one above. A new
# package must be placed here (the test says so) before it can pass.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    # Plain helpers and the error tree: import no other part.
    ("foundation", frozenset({"tcab", "errors", "atomic", "naming", "outcomes", "settings", "limits",
                            "bounds", "reading", "links",
                            # the drawing library: standard library only, copied into the sprite images
                            "draw",
                            # the glTF reader and writer (numpy only), and three.js for the view (a folder of
                            # npm files)
                            "gltf", "web3d"})),
    # Each stands alone: containers, templates, parsed cases, the results database and its presenters.
    # The voxel tools (over the glTF writer) and tcab-blend with its preview (over the drawing
    # library's PNG writer), copied into their run images.
    ("platform", frozenset({"runtime", "templates", "catalog", "results", "voxel", "blender"})),
    # The key of each artifact (module builds, seeds, validations): over the catalog's digests.
    ("keys", frozenset({"artifacts"})),
    # Chromium and its pages (shared by seeding and validation), harness adapters, sweep plans.
    # The preview listener of a watched run and its page.
    ("tools", frozenset({"browser", "harnesses", "plan", "watch"})),
    ("seeding", frozenset({"seeding"})),
    # The test types (end-to-end, adversarial): what a type adds to parsing and
    # seeding; reached only through the catalog's table of "module:Class" names.
    ("types", frozenset({"testtypes"})),
    ("runs", frozenset({"runs"})),
    # What happens to a run's output: matches and tournaments, end-to-end validation.
    ("evaluation", frozenset({"arena", "validation"})),
    # Performance scores: engines run on held-out scenarios in the arena's sandbox.
    ("scoring", frozenset({"performance"})),
    ("view", frozenset({"view"})),
    # The entry points: the sweep's doit tasks and the command line.
    ("commands", frozenset({"tasks", "cli"})),
    ("main", frozenset({"__main__"})),
)


def package_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def package_graph(graph: dict[str, set[str]]) -> tuple[dict[str, set[str]], dict[tuple[str, str], list[str]]]:
    """The packages' graph and, for each of its edges, the module imports behind it."""
    packages: dict[str, set[str]] = {package_of(m): set() for m in graph}
    why: dict[tuple[str, str], list[str]] = {}
    for module, targets in graph.items():
        for target in sorted(targets):
            p, q = package_of(module), package_of(target)
            if p != q:
                packages[p].add(q)
                why.setdefault((p, q), []).append(f"{module} -> {target}")
    return packages, why


def layer_violations(graph: dict[str, set[str]], layers=LAYERS) -> list[str]:
    rank = {pkg: i for i, (_, members) in enumerate(layers) for pkg in members}
    name = {i: label for i, (label, _) in enumerate(layers)}
    packages, why = package_graph(graph)
    found = [f"tcab.{p}: in no layer; place it in LAYERS" for p in sorted(packages) if p not in rank]
    for p in sorted(packages):
        for q in sorted(packages[p]):
            if p in rank and q in rank and rank[q] >= rank[p]:
                found.append(f"{p} ({name[rank[p]]}) imports {q} ({name[rank[q]]}): {'; '.join(why[(p, q)])}")
    return found


def test_a_planted_package_cycle_and_an_upward_import_are_found() -> None:
    graph = {"tcab.a.x": {"tcab.b.y"}, "tcab.b.y": {"tcab.c"}, "tcab.c": {"tcab.a.z"}, "tcab.a.z": set()}
    packages, _ = package_graph(graph)
    assert cycles(packages) == [["a", "b", "c"]]
    layers = (("low", frozenset({"c"})), ("mid", frozenset({"b"})), ("high", frozenset({"a"})))
    assert layer_violations(graph, layers) == ["c (low) imports a (high): tcab.c -> tcab.a.z"]
    assert layer_violations({"tcab.d": set()}, layers) == ["tcab.d: in no layer; place it in LAYERS"]


def test_no_package_imports_one_that_imports_it_back() -> None:
    packages, why = package_graph(import_graph())
    found = cycles(packages)
    assert found == [], [(c, {e: why[e] for e in why if e[0] in c and e[1] in c}) for c in found]


def test_each_package_imports_only_lower_layers() -> None:
    assert layer_violations(import_graph()) == []

