"""The layers the tree shows hold in the code: the program core below the engine, the engine below its
backends, the language server and training above them, the command line on top; no module imports up a
layer or sideways into a peer, no import circle, and the core loads neither torch nor pygls.

The import graph is read with ``ast`` from the sources, every import statement counted (inside functions
and under TYPE_CHECKING too): a lazy import up a layer is still a dependency up a layer.
"""

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "cad_lsp"

# Bottom to top.  Packages on one rank are peers: neither imports the other.
LAYERS = [
    ("cad_lsp.program",),
    ("cad_lsp.engine",),
    ("cad_lsp.backends",),
    ("cad_lsp.lsp", "cad_lsp.http", "cad_lsp.train"),
    ("cad_lsp",),  # the command line and the background process
]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def imported(name: str, tree: ast.AST | None = None) -> set[str]:
    """The modules of this package that ``name`` imports, and the outside top-level packages it imports."""
    tree = tree or ast.parse(MODULES[name].read_text(encoding="utf-8"))
    package = name if is_package(name) else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module
            found.add(origin)
            for alias in node.names:  # ``from . import grammar`` imports the module cad_lsp.engine.grammar
                if f"{origin}.{alias.name}" in MODULES:
                    found.add(f"{origin}.{alias.name}")
    return found


def internal(names: set[str]) -> set[str]:
    return {n for n in names if n in MODULES}


def rank(name: str) -> tuple[int, str]:
    """(layer, the package that owns the module on that layer): the longest package that holds it."""
    owners = [(len(package), level, package) for level, packages in enumerate(LAYERS) for package in packages
              if name == package or name.startswith(package + ".")]
    assert owners, f"{name} is in no layer"
    _, level, package = max(owners)
    return level, package


def layer_problems(graph: dict[str, set[str]]) -> list[str]:
    problems = []
    for source, targets in graph.items():
        source_level, source_package = rank(source)
        for target in internal(targets):
            target_level, target_package = rank(target)
            if target_level > source_level:
                problems.append(f"{source} imports {target}, a layer up")
            elif target_level == source_level and target_package != source_package:
                problems.append(f"{source} imports {target}, a peer on its layer")
    return sorted(problems)


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every import circle (one path per circle found by depth-first search)."""
    found, state = [], {}

    def visit(node: str, path: list[str]) -> None:
        state[node] = "open"
        for nxt in sorted(internal(graph.get(node, set()))):
            if state.get(nxt) == "open":
                found.append(path[path.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


GRAPH = {name: imported(name) for name in MODULES}


def test_every_module_sits_on_a_layer_and_imports_only_below_it():
    assert layer_problems(GRAPH) == []


def test_the_check_finds_an_import_up_a_layer_and_into_a_peer():
    """The checks themselves, on imports written into a copy of the graph."""
    bad = {**GRAPH, "cad_lsp.program.ops": GRAPH["cad_lsp.program.ops"] | {"cad_lsp.engine.grammar"},
           "cad_lsp.lsp.server": GRAPH["cad_lsp.lsp.server"] | {"cad_lsp.train.split"}}
    assert layer_problems(bad) == ["cad_lsp.lsp.server imports cad_lsp.train.split, a peer on its layer",
                                   "cad_lsp.program.ops imports cad_lsp.engine.grammar, a layer up"]
    lazy = ast.parse("def f():\n    from ..engine import engine\n")
    assert "cad_lsp.engine.engine" in imported("cad_lsp.backends.catalog", lazy)
    circle = {**GRAPH, "cad_lsp.lsp.documents": GRAPH["cad_lsp.lsp.documents"] | {"cad_lsp.lsp.server"}}
    assert any("cad_lsp.lsp.documents" in c and "cad_lsp.lsp.server" in c for c in cycles(circle))


def test_no_import_circle():
    assert cycles(GRAPH) == []


def test_no_module_knows_both_the_language_server_and_torch():
    for name in MODULES:
        outside = {n.split(".")[0] for n in GRAPH[name]}
        assert not {"pygls", "torch"} <= outside, name


def test_the_seam_imports_no_backend():
    """A new backend imports the seam; the seam imports nothing of cad_lsp's, so no circle can close."""
    assert internal(GRAPH["cad_lsp.engine.backend"]) == set()


@pytest.mark.parametrize("modules, absent", [
    ([m for m in MODULES if m.startswith("cad_lsp.program")], ("torch", "pygls", "transformers", "llguidance")),
    (["cad_lsp.engine.backend", "cad_lsp.engine.window", "cad_lsp.backends.catalog"], ("torch", "transformers")),
    (["cad_lsp.lsp.server"], ("torch", "transformers")),
])
def test_light_layers_load_no_heavy_library(modules, absent):
    """Importing them in a fresh interpreter loads none of ``absent`` (the server loads the model later,
    in a thread; the core is the resolver a client may embed)."""
    code = (f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
            f"print(sorted(n for n in {list(absent)!r} if n in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
