"""cpu-c17 (SPEC-02P.1 10.3): the program as C17, compiled by the system's C compiler
into a shared library and run on the host, every kernel one work-item at a time.

`emit` translates the IR to C (deterministic), `rt/` is the C run-time it links with
(exact arithmetic, fault records, the dispatch protocol), `build` compiles with a cache,
`host` loads the library with cffi and runs it (with `trace`, the boundaries that
`running.compare` checks against the reference), `describe` runs one work-item again for gpu-cuda
(`describe_work_item`, SPEC-02P.1 10.6). README.md documents the design and the ABI.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir import nodes as ir
from ..executors import ExecutorUnavailable, Options, Write
from ..runtime import RunResult
from .describe import describe_work_item
from .library import EXECUTOR, Untranslatable, run

if TYPE_CHECKING:
    from ...ir.build import Build
    from ...syntax import Diagnostic


def emit_text(program: ir.Program) -> str:
    """The C17 that cpu-c17 compiles (`cint emit-c`): deterministic."""
    from .emit import EmitError, emit_program

    try:
        return emit_program(program)
    except EmitError as error:
        raise Untranslatable(f"cpu-c17 cannot translate this program: {error}") from None


def ready() -> tuple[bool, str]:
    """(whether there is a C compiler to run with, its name or why not): `--executor
    auto`'s question (running/auto.py), answered as `build.find_compiler` finds one."""
    from .build import find_compiler

    try:
        compiler = find_compiler()
    except ExecutorUnavailable as error:
        return False, str(error)
    return True, compiler.version or compiler.name


class C17:
    """cpu-c17 as an `Executor` (exec/executors.py)."""

    name = EXECUTOR
    description = "C17 through the system C compiler (gcc or clang)"
    native = True
    compiles = True

    def run(self, program: ir.Program, fuel: int | None, write: Write | None, options: Options) -> RunResult:
        return run(program, fuel, write, options)

    def admit(self, built: Build) -> Diagnostic | None:
        return None  # beyond its limits it says so when it translates (library.Untranslatable)

    def emit(self, program: ir.Program) -> str:
        return emit_text(program)

    def ready(self, timeout: float | None = None) -> tuple[bool, str]:
        return ready()

    def simulated(self) -> bool:
        return False


executor = C17()

__all__ = ["EXECUTOR", "describe_work_item", "executor", "run"]
