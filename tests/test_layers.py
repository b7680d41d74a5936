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
import functools
from dataclasses import dataclass
from importlib.machinery import EXTENSION_SUFFIXES
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
    ("cint_ls.server", "cint_ls.cli", "cint_ls.debug", "cint_ls.workbench"),
]

# Imports between units of one layer that the design wants: (importer, imported) -> why.
ALLOWED: dict[tuple[str, str], str] = {
    ("cint_ls.cli", "cint_ls.workbench"): "`cint workbench` is cint-workbench",
    ("cint_ls.debug", "cint_ls.server"):
        "the base protocol's framing (server/framing.py) is LSP's and DAP's alike: one reader, robust to the "
        "same mistakes (test_the_debugger_takes_only_the_framing_of_the_server)",
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


@functools.cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of the file's tree: each file is parsed once for all the checks."""
    return tuple(ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))))


@functools.cache
def _imports(name: str, path: Path) -> list[Edge]:
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    file = str(path.relative_to(SOURCE.parent))
    edges: list[Edge] = []
    for node in _nodes(path):
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
            targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in MODULES or _is_extension(f"{module}.{a.name}")
                       else module for a in node.names]
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
        for node in _nodes(path):
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


# ---------------------------------------------------------------- what ide and server may reach

# Modules whose import means I/O an ide function must not do: the CUDA probe (it may open
# the CUDA driver in this process, or start a child) and processes.
PROCESSES = ("subprocess", "multiprocessing")
PROBE = "cint_ls.exec.cuda.probe"


@functools.cache
def _all_imports(path: Path) -> frozenset[str]:
    """Every module an Import or ImportFrom of the file names, cint_ls or not (relative
    ones are cint_ls's, resolved by _imports)."""
    found: set[str] = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module)
    return frozenset(found)


def _reached(start: str) -> dict[str, str]:
    """The cint_ls modules that importing `start` may import, directly or through the
    modules it imports (function-level imports count, and a module's packages), each
    with the module that imports it first."""
    reached = {start: ""}
    todo = [start]
    while todo:
        name = todo.pop()
        parts = name.split(".")
        edges = [(e.imported, name) for e in _imports(name, MODULES[name])]
        edges += [(".".join(parts[:n]), name) for n in range(1, len(parts))]  # its packages
        for imported, by in edges:
            while imported not in MODULES and "." in imported:  # `from pkg import name`: the package
                imported = imported.rpartition(".")[0]
            if imported in MODULES and imported not in reached:
                reached[imported] = by
                todo.append(imported)
    return reached


def _chain(reached: dict[str, str], name: str) -> str:
    chain = [name]
    while reached[chain[-1]]:
        chain.append(reached[chain[-1]])
    return " <- ".join(chain)


def test_no_ide_function_reaches_a_probe_or_a_process():
    """An ide function does no I/O (docs/architecture.md): no module of cint_ls/ide
    imports the CUDA probe or subprocess/multiprocessing, directly or through any module
    it imports (issue 29: the lenses reached exec/cuda/probe through run.executor_label;
    the server now passes the forecast in)."""
    found = []
    for name in (n for n in MODULES if _unit(n) == "cint_ls.ide"):
        reached = _reached(name)
        if PROBE in reached:
            found.append(_chain(reached, PROBE))
        for module in reached:
            for process in sorted(_all_imports(MODULES[module]) & set(PROCESSES)):
                found.append(f"{process} <- {_chain(reached, module)}")
    assert not found, "ide reaches a probe or a process:\n" + "\n".join(sorted(set(found)))


def test_the_check_of_reach_sees_a_chain_through_the_facade():
    """The check above follows imports through other modules: the façade (running.run)
    reaches both the probe (through the executor registry) and subprocess (isolated)."""
    reached = _reached("cint_ls.running.run")
    assert PROBE in reached and "cint_ls.running.isolated" in reached
    assert "subprocess" in _all_imports(MODULES["cint_ls.running.isolated"])


def test_the_server_imports_no_executor_internals():
    """The server reaches the executors through the running façade only (issue 29: its
    settings imported exec.c17.cluster): no module of cint_ls/server imports a module of
    an executor's package."""
    executors = ("cint_ls.exec.interp", "cint_ls.exec.c17", "cint_ls.exec.cuda")
    found = [f"{e.file}:{e.line}: {e.importer} imports {e.imported}"
             for name, path in MODULES.items() if _unit(name) == "cint_ls.server"
             for e in _imports(name, path) if _unit(e.imported) in executors]
    assert not found, "the server imports an executor's internals (use cint_ls.running):\n" + "\n".join(found)


# ---------------------------------------------------------------- circles

def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), or of one
    that imports itself: each an import circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(edges.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1 or node in edges.get(node, ()):
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def _is_extension(name: str) -> bool:
    """Whether `name` is a compiled module of the package (syntax._binding), built or
    only stubbed (`.pyi`) where the test reads the sources."""
    if name in MODULES:
        return False
    stem = SOURCE.parent / name.replace(".", "/")
    return any(stem.with_name(stem.name + suffix).exists() for suffix in (".pyi", *EXTENSION_SUFFIXES))


def _package_edges() -> dict[str, set[str]]:
    """importer -> imported, both modules of one unit (a package of LAYERS), every
    import counted: at module level, in functions, under TYPE_CHECKING."""
    edges: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        for edge in _imports(name, path):
            imported = edge.imported
            if _is_extension(imported):
                continue  # a compiled submodule (syntax._binding): a leaf, not its package
            while imported not in MODULES and "." in imported:
                imported = imported.rpartition(".")[0]
            if imported in MODULES and imported != name and _unit(imported) == _unit(name):
                edges.setdefault(name, set()).add(imported)
    return edges


def test_no_import_circle_inside_a_package():
    """Inside a package the modules import one way too (issue 29: running/run.py and
    running/isolated.py imported each other, what both need is in running/entry.py; the
    last four circles went with cpu-c17's headers.py, Session.failed, the lens refresh's
    own Protocol of the session, and the grammar's extension read as the leaf it is)."""
    circles = sorted(tuple(c) for c in _cycles(_package_edges()))
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_facade_and_its_child_import_one_way():
    """The circle of issue 29: isolated.child_main imported run_built from run.py, which
    imports isolated. Both now import running.entry, and isolated imports no run."""
    edges = _package_edges()
    assert "cint_ls.running.run" not in edges.get("cint_ls.running.isolated", set())
    assert "cint_ls.running.entry" in edges["cint_ls.running.isolated"]
    assert not any(c for c in _cycles(edges) if "cint_ls.running.run" in c)


def test_the_circle_check_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"a"}}) == [["a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _lazy_packages() -> list[Path]:
    """The packages whose __init__ gives names on first use (a module `__getattr__`)."""
    return sorted(p.parent for p in SOURCE.rglob("__init__.py")
                  if any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__"
                         for n in ast.parse(p.read_text(encoding="utf-8")).body))


def test_every_module_of_a_lazy_package_imports_first():
    """The static check above sees `from . import ast` as the submodule; at run time it
    asks the package's `__getattr__` first, which imported `lower` while `lower` was
    being imported: `syntax.parse_source` failed as a process's first call (issue 29).
    So each module of such a package is imported alone, in a fresh interpreter."""
    import subprocess
    import sys

    names = [".".join(m.relative_to(SOURCE.parent).with_suffix("").parts)
             for package in _lazy_packages() for m in sorted(package.glob("*.py")) if m.name != "__init__.py"]
    assert "cint_ls.syntax.lower" in names
    running = {name: subprocess.Popen([sys.executable, "-P", "-c", f"import {name}"], cwd=SOURCE.parent,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
               for name in names}
    failed = {name: p.communicate()[1].decode()[-400:] for name, p in running.items() if p.wait() != 0}
    assert not failed, "\n\n".join(f"{name}:\n{err}" for name, err in failed.items())


def test_the_debugger_takes_only_the_framing_of_the_server():
    """cint-debug knows DAP and the language server LSP: what they share is the base
    protocol's framing, and nothing else of the server (issue 30)."""
    taken = {e.imported for name, path in MODULES.items() if name.startswith("cint_ls.debug")
             for e in _imports(name, path) if e.imported.startswith("cint_ls.server")}
    assert taken == {"cint_ls.server.framing"}
