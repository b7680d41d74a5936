"""The layers of cint_ls (docs/architecture.md): data flows one way, so a module imports
only modules of its own unit or of an earlier layer.

Every module is parsed with `ast`; every Import and ImportFrom counts, inside functions
too, relative ones resolved. Units of one layer do not import each other, except by an
edge of ALLOWED (with its reason). KNOWN lists backward imports in files this change
could not touch: each is a TODO, and the test fails once one is gone so that its entry
is removed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

SOURCE = Path(__file__).resolve().parent.parent / "cint_ls"

# Earliest first; a module belongs to the longest unit that names it. `cint_ls` itself
# is the package's version only.
LAYERS: list[tuple[str, ...]] = [
    ("cint_ls", "cint_ls.vocabulary"),
    ("cint_ls.syntax",),
    ("cint_ls.analysis",),
    ("cint_ls.ir",),
    ("cint_ls.exec",),  # what executors share: arith, faults, views, dispatch, runtime, the registry
    ("cint_ls.exec.interp", "cint_ls.exec.c17", "cint_ls.exec.cuda"),  # the executors
    ("cint_ls.running",),  # running and presenting: the façade, isolated runs, auto, compare, report, trace
    ("cint_ls.ide",),
    ("cint_ls.server", "cint_ls.cli"),
]

# Imports between units of one layer that the design wants: (importer, imported) -> why.
ALLOWED: dict[tuple[str, str], str] = {
    ("cint_ls.exec.cuda", "cint_ls.exec.c17"):
        "gpu-cuda describes a fault by re-running the work-item in cpu-c17 code (SPEC-02P.1 10.6)",
    ("cint_ls.exec.cuda", "cint_ls.exec.interp"):
        "gpu-cuda's host runs the entry on the reference interpreter's machine, which also replays a "
        "faulting work-item where no C compiler is present",
}

# Backward imports in files outside this change: (file, imported module) -> the TODO.
KNOWN: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Edge:
    file: str  # relative to the repository
    line: int
    importer: str
    imported: str


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(SOURCE.rglob("*.py"))}


def _imports(name: str, path: Path) -> list[Edge]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    file = str(path.relative_to(SOURCE.parent))
    edges: list[Edge] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            # `from cint_ls import ide` imports the module cint_ls.ide.
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES else module for a in node.names]
        edges += [Edge(file, node.lineno, name, t) for t in dict.fromkeys(targets)
                  if t == "cint_ls" or t.startswith("cint_ls.")]
    return edges


def _unit(module: str) -> str:
    units = [u for layer in LAYERS for u in layer if module == u or module.startswith(u + ".")]
    return max(units, key=len)


RANK = {unit: rank for rank, layer in enumerate(LAYERS) for unit in layer}


def _backward(edge: Edge) -> bool:
    importer, imported = _unit(edge.importer), _unit(edge.imported)
    if importer == imported or RANK[imported] < RANK[importer]:
        return False
    return (importer, imported) not in ALLOWED


def test_every_module_belongs_to_a_layer():
    assert MODULES, f"no modules under {SOURCE}"
    for name in MODULES:
        assert _unit(name) in RANK, name


def test_no_module_imports_a_later_layer():
    edges = [e for name, path in MODULES.items() for e in _imports(name, path)]
    backward = [e for e in edges if _backward(e) and (e.file, e.imported) not in KNOWN]
    assert not backward, "imports of a later layer (docs/architecture.md):\n" + "\n".join(
        f"{e.file}:{e.line}: {e.importer} ({_unit(e.importer)}) imports {e.imported} ({_unit(e.imported)})"
        for e in backward)
    gone = set(KNOWN) - {(e.file, e.imported) for e in edges if _backward(e)}
    assert not gone, f"fixed, remove from KNOWN: {sorted(gone)}"


def test_resolution_of_relative_and_package_imports():
    edges = {(e.importer, e.imported) for e in _imports("cint_ls.ir.lower", MODULES["cint_ls.ir.lower"])}
    assert ("cint_ls.ir.lower", "cint_ls.vocabulary.operations") in edges  # from ..vocabulary.operations
    assert ("cint_ls.ir.lower", "cint_ls.ir.nodes") in edges  # from . import nodes
    assert _unit("cint_ls.exec.arith.scalar") == "cint_ls.exec"
    assert _unit("cint_ls.exec.c17.emit.unit") == "cint_ls.exec.c17"


# ---------------------------------------------------------------- the executor registry

# Calls that import a module named by a string: an edge the layer test cannot read.
_BY_NAME = {"import_module", "__import__", "find_spec", "find_loader", "spec_from_file_location"}
# Such calls that reach no module of cint_ls: (file, function) -> why.
BY_NAME_ALLOWED = {("cint_ls/exec/cuda/probe.py", "find_spec"):
                   "whether cuda-python is installed (cuda.bindings, cuda.cuda), without importing it"}


def _called_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def test_no_module_imports_cint_ls_by_name():
    """Every import between modules is a statement this test reads (issue 29): no
    `importlib.import_module`, `__import__` or finder call names a module but by a
    literal outside cint_ls, or by an entry of BY_NAME_ALLOWED."""
    found = []
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not isinstance(node, ast.Call) or _called_name(node) not in _BY_NAME:
                continue
            if (str(path.relative_to(SOURCE.parent)), _called_name(node)) in BY_NAME_ALLOWED:
                continue
            first = node.args[0] if node.args else None
            literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
            if not literal or first.value == "cint_ls" or first.value.startswith(("cint_ls.", ".")):
                found.append(f"{path.relative_to(SOURCE.parent)}:{node.lineno}: {ast.unparse(node)}")
    assert not found, "imports by name (write the import out):\n" + "\n".join(found)


def test_every_executor_is_registered_by_an_import_the_layer_test_sees():
    from cint_ls.exec.executors import EXECUTOR_NAMES
    from cint_ls.running import executors as registry

    assert list(registry.LOADERS) == list(EXECUTOR_NAMES)
    registry_module = "cint_ls.running.executors"
    imported = {e.imported for e in _imports(registry_module, MODULES[registry_module])}
    for package in ("cint_ls.exec.interp", "cint_ls.exec.c17", "cint_ls.exec.cuda"):
        assert package in imported, f"{registry_module} does not import {package}"


def test_every_registered_executor_satisfies_the_interface():
    """What each loader returns is an `Executor` (exec/executors.py): every attribute of
    the Protocol, its methods with the Protocol's parameters, its name the one it is
    registered under."""
    import inspect

    from cint_ls.exec.executors import Executor
    from cint_ls.running import executors as registry

    methods = {name: inspect.signature(getattr(Executor, name)) for name in ("run", "admit", "emit", "ready",
                                                                              "simulated")}
    for name, load in registry.LOADERS.items():
        executor = load()
        assert isinstance(executor, Executor), f"{name}: {type(executor).__name__} is not an Executor"
        assert executor.name == name
        assert isinstance(executor.description, str) and executor.description
        assert isinstance(executor.native, bool) and isinstance(executor.compiles, bool)
        for method, signature in methods.items():
            mine = inspect.signature(getattr(type(executor), method))
            assert list(mine.parameters) == list(signature.parameters), f"{name}.{method}{mine} is not {signature}"
