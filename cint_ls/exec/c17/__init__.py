"""cpu-c17 (SPEC-02P.1 10.3): the program as C17, compiled by the system's C compiler
into a shared library and run on the host, every kernel one work-item at a time.

`emit` translates the IR to C (deterministic), `rt/` is the C run-time it links with
(exact arithmetic, fault records, the dispatch protocol), `build` compiles with a cache,
`host` loads the library with cffi and runs it (with `trace`, the boundaries that
`running.compare` checks against the reference), `describe` runs one work-item again for gpu-cuda
(`describe_work_item`, SPEC-02P.1 10.6). README.md documents the design and the ABI.
"""

from ..executors import Executor, ExecutorUnavailable, register
from .describe import describe_work_item
from .host import EXECUTOR, run


def emit_text(program) -> str:
    """The C17 that cpu-c17 compiles (`cint emit-c`): deterministic."""
    from .emit import EmitError, emit_program

    try:
        return emit_program(program)
    except EmitError as error:
        raise ExecutorUnavailable(f"cpu-c17 cannot translate this program: {error}") from None


def ready() -> tuple[bool, str]:
    """(whether there is a C compiler to run with, its name or why not): `--executor
    auto`'s question (running/auto.py), answered as `build.find_compiler` finds one."""
    from .build import find_compiler

    try:
        compiler = find_compiler()
    except ExecutorUnavailable as error:
        return False, str(error)
    return True, compiler.version or compiler.name


register(Executor(EXECUTOR, "C17 through the system C compiler (gcc or clang)", run, native=True,
                  options={"emit": emit_text, "compiles": True, "ready": ready}))

__all__ = ["EXECUTOR", "describe_work_item", "run"]
