"""The C17 emitter of cpu-c17: IR -> one C translation unit (see ../README.md).

`ctypes` maps cint types to C, `unit` emits one function body (expressions and
statements) in one of three modes, `ranges` and `facts` prove checks that cannot fail,
`kernel` emits a kernel (entry-phase functions, fast path, counting variant, tables),
`program` assembles functions, kernels, the entry and the span table.
"""

from .ctypes import EmitError
from .program import emit_program

__all__ = ["EmitError", "emit_program"]
