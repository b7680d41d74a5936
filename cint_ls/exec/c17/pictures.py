"""The trace's pictures of cpu-c17's arrays (`cint run --trace-arrays`, docs/trace.md).

cpu-c17 keeps its arrays in its C run-time. With pictures asked for (the selection of
exec/selection.py, `current_selection`), library.py sets an observer on the run's context
(`cint_ctx_set_observer`, rt/context.c): rt/dispatch.c calls it after each dispatch that
published, off the dispatch's recorded time, with the kernel's qualified name, the
dispatch's number and its arguments, the views the program passed. `Pictures.observe`
reads the selected 2-D out/inout views' elements there, through the same
`ArraySelection.take` as the shared protocol's (exec/dispatch.py), so that the rows,
the limits and the values are the interpreter's: integers in row-major order of the
view's index tuples, a fixed-point element its stored integer, a Bool 0 or 1. Without
a selection no observer is set and the run-time pays nothing.

The rows go into RunResult.dispatch_log (`attach`), which crosses the isolation
boundary of running/isolated.py as JSON like the interpreter's.
"""

from __future__ import annotations

from typing import Any, Literal

from ...ir import nodes as ir
from ..faults import JsonObject
from ..runtime import DISPATCH_LOG_LIMIT, DispatchRow
from ..selection import ArraySelection

# The element layout of the run-time (rt/cint_rt.h): a type code's bits, signedness,
# Bool flag; a value of up to 64 bits is the <stdint.h> type of its width, a wider one
# little-endian two's-complement limbs.
TC_SIGNED, TC_BOOL = 0x1000, 0x4000
_IntFormat = Literal["b", "B", "h", "H", "i", "I", "q", "Q"]  # memoryview.cast's
_FORMATS: dict[tuple[int, bool], _IntFormat] = {(1, True): "b", (1, False): "B", (2, True): "h", (2, False): "H", (4, True): "i", (4, False): "I",
            (8, True): "q", (8, False): "Q"}


def view_values(ffi: Any, view: Any) -> list[int]:  # cffi's FFI and a `cint_view`
    """The elements of a 2-D `cint_view` in row-major order of its index tuples."""
    rows, columns = int(view.extents[0]), int(view.extents[1])
    if rows == 0 or columns == 0:
        return []
    tc = int(view.element)
    signed = bool(tc & TC_SIGNED) and not tc & TC_BOOL
    size = 1 if tc & TC_BOOL else (tc & 0x7FF) // 8
    origin, s0, s1 = int(view.origin), int(view.strides[0]), int(view.strides[1])
    if rows == 1:
        s0 = 0
    if columns == 1:
        s1 = 0
    low = origin + min(0, (rows - 1) * s0) + min(0, (columns - 1) * s1)
    high = origin + max(0, (rows - 1) * s0) + max(0, (columns - 1) * s1)
    data = ffi.buffer(ffi.cast("char *", view.data) + low * size, (high - low + 1) * size)
    fmt = _FORMATS.get((size, signed))
    if fmt is not None:
        elements = memoryview(data).cast(fmt).tolist()
    else:
        raw = bytes(data)
        elements = [int.from_bytes(raw[i:i + size], "little", signed=signed) for i in range(0, len(raw), size)]
    if s1 == 1 and s0 == columns:  # dense: the common case
        return elements
    values: list[int] = []
    for i in range(rows):
        start = origin + i * s0 - low
        values.extend(elements[start::s1][:columns] if s1 else elements[start:start + 1])
    return values


class Pictures:
    """The observer of one run: `observe` per published dispatch, `attach` to its rows."""

    def __init__(self, program: ir.Program, selection: ArraySelection) -> None:
        self.kernels = {kernel.qualified: kernel for kernel in program.kernels.values()}
        self.selection = selection
        self.taken: dict[int, JsonObject] = {}
        self.error: str | None = None
        self._callback: Any = None  # listen's, alive as long as this

    def observe(self, ffi: Any, kernel_name: Any, number: int, nparams: int, args: Any) -> None:
        """cint_ctx_set_observer's callback. Never raises (cffi would only print it): the
        first error ends the pictures, and the run's notes say why."""
        if number >= DISPATCH_LOG_LIMIT or self.error is not None:  # rows beyond the log's have no pictures
            return
        try:
            kernel = self.kernels[ffi.string(kernel_name).decode("utf-8")]
            arrays = []
            for p, param in enumerate(kernel.params[:nparams]):
                if param.extents is None or param.mode not in ("out", "inout") or len(param.extents) != 2:
                    continue
                view = args[p].view
                arrays.append((param.name, param.type.name, [int(view.extents[0]), int(view.extents[1])],
                               lambda view=view: view_values(ffi, view)))
            self.taken[number] = self.selection.take(kernel.qualified, arrays)
        except Exception as error:  # noqa: BLE001 - a callback from C must not raise
            self.error = f"{type(error).__name__}: {error}"
            self.taken.clear()

    def listen(self, ffi: Any, lib: Any, ctx: Any) -> None:
        """Become the run-time's observer of `ctx` (rt/context.c), the callback kept alive
        with this object (the caller keeps it until the run ends)."""
        self._callback = ffi.callback("void(void *, const char *, int64_t, int32_t, const cint_arg *)",
                                      lambda user, kernel, number, nparams, args:
                                      self.observe(ffi, kernel, number, nparams, args))
        lib.cint_ctx_set_observer(ctx, self._callback, ffi.NULL)

    def attach(self, rows: list[DispatchRow]) -> str | None:
        """The pictures into the dispatch log's rows; a note when they failed."""
        if self.error is not None:
            return f"cpu-c17 took no pictures of arrays for the trace: {self.error}"
        for row in rows:
            taken = self.taken.get(row["number"])
            if taken is not None:
                row["arrays"] = taken
        return None
