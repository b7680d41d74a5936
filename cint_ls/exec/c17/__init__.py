"""cpu-c17 (SPEC-02P.1 10.3): the program as C17, compiled by the system's C compiler
into a shared library and run on the host, every kernel one work-item at a time.

`emit` translates the IR to C (deterministic), `rt/` is the C run-time it links with
(exact arithmetic, fault records, the dispatch protocol), `build` compiles with a cache,
`host` loads the library with cffi and runs it, `check` compares it with the reference
(`cint run --check cpu-c17`), `describe` runs one work-item again for gpu-cuda
(`describe_work_item`, SPEC-02P.1 10.6). README.md documents the design and the ABI.
"""

from ..executors import Executor, register
from .describe import describe_work_item
from .host import EXECUTOR, run

register(Executor(EXECUTOR, "C17 through the system C compiler (gcc or clang)", run, native=True))

__all__ = ["EXECUTOR", "describe_work_item", "run"]
