"""Which arrays a run takes pictures of for its trace (`cint run --trace-arrays`, the
editor's cint.trace.arrays), and where the executors find that selection.

The pictures are taken after each dispatch publishes: by the shared dispatch protocol
(`Dispatcher`, exec/dispatch.py) for the executors that run on it, and by the C run-time
through an observer (exec/c17/pictures.py) for cpu-c17 and gpu-cuda's host in C
(exec/cuda/c_host.py), all through `ArraySelection.take`. The selection reaches them
through `selected_arrays` around the executor's run (in the child process of an
isolated run too), so no executor needs an option of its own. The trace that carries
the pictures is built above the executors (running/trace.py).
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..ir import nodes as ir
from .faults import JsonObject
from .views import View, copy_elements

ARRAY_LIMIT = 2048 * 2048  # elements of one array a picture is taken of (the default)
TOTAL_LIMIT = 8 * 2048 * 2048  # elements kept over a whole run; later pictures are dropped, counted


@dataclass
class ArraySelection:
    """Which 2-D out/inout arrays get a picture after each dispatch: `names` (a
    parameter's name, `v`, or the kernel's and the parameter's, `diffuse.v` or
    `heat_tour.diffuse.v`), or None for all of them; each of at most `limit` elements."""

    names: frozenset[str] | None = None
    limit: int = ARRAY_LIMIT
    total: int = TOTAL_LIMIT

    def __post_init__(self) -> None:
        self.kept = 0  # elements kept so far in this run

    @classmethod
    def parse(cls, text: str, limit: int = ARRAY_LIMIT) -> ArraySelection:
        """`all` or `NAME,...` (the CLI's --trace-arrays); ValueError with the reason."""
        text = text.strip()
        if text == "all":
            return cls(None, limit)
        names = [name.strip() for name in text.split(",")]
        if not text or any(not name or not all(part.isidentifier() for part in name.split(".")) for name in names):
            raise ValueError(f"--trace-arrays {text!r}: `all` or array parameters' names separated by commas "
                             "(`v`, `diffuse.v`)")
        return cls(frozenset(names), limit)

    def to_json(self) -> JsonObject:
        return {"names": None if self.names is None else sorted(self.names), "limit": self.limit,
                "total": self.total}

    @classmethod
    def from_json(cls, data: JsonObject | None) -> ArraySelection | None:
        if not data:
            return None
        names = data.get("names")
        return cls(None if names is None else frozenset(names), int(data.get("limit", ARRAY_LIMIT)),
                   int(data.get("total", TOTAL_LIMIT)))

    def wants(self, kernel_name: str, param: str) -> bool:
        if self.names is None:
            return True
        short = kernel_name.rsplit(".", 1)[-1]
        return bool({param, f"{short}.{param}", f"{kernel_name}.{param}"} & self.names)

    def snapshot(self, kernel: ir.Kernel, args: Sequence[object]) -> JsonObject:
        """After a dispatch published (the shared protocol's Views): `take` of its 2-D
        out/inout arrays."""
        return self.take(kernel.qualified, [
            (param.name, arg.storage.element.name, list(arg.extents),
             _reader(arg))
            for param, arg in zip(kernel.params, args)
            if isinstance(arg, View) and param.mode in ("out", "inout") and len(arg.extents) == 2])

    def take(self, kernel_name: str, arrays: Iterable[tuple[str, str, list[int], Callable[[], list[int]]]]) -> JsonObject:
        """After a dispatch published, given its 2-D out/inout arrays as (parameter,
        element type's name, [rows, columns], a function that reads the elements in
        row-major order as a list of Python ints): the values of the selected ones (`arrays`), the names of them
        all (`candidates`) and the selected ones too large or over the run's total
        (`skipped`). Every executor's pictures come through here (cpu-c17's:
        exec/c17/pictures.py), so the limits and the rows are the same."""
        taken: list[JsonObject] = []
        candidates: list[str] = []
        skipped: list[JsonObject] = []
        for param, element, shape, read in arrays:
            candidates.append(param)
            if not self.wants(kernel_name, param):
                continue
            size = shape[0] * shape[1]
            if size > self.limit or self.kept + size > self.total:
                skipped.append({"param": param, "elements": size,
                                "why": "over the array limit" if size > self.limit else "over the run's total"})
                continue
            self.kept += size
            values = read()
            taken.append({"param": param, "element": element, "shape": list(shape), "values": values})
        return {"arrays": taken, "candidates": candidates, "skipped": skipped}


def _reader(view: View) -> Callable[[], list[int]]:
    """A function that reads the view's elements in row-major order (taken only when selected)."""
    return lambda: [int(v) for v in copy_elements(view)]


_SELECTION: contextvars.ContextVar[ArraySelection | None] = contextvars.ContextVar("cint_trace_arrays", default=None)


def current_selection() -> ArraySelection | None:
    """The arrays the run in progress takes pictures of (read by Dispatcher)."""
    return _SELECTION.get()


@contextlib.contextmanager
def selected_arrays(options: JsonObject) -> Iterator[JsonObject]:
    """Around an executor's run: the option `trace_arrays` taken out of the options (no
    executor sees it) and made the selection the run's Dispatcher reads."""
    options = dict(options)
    selection = ArraySelection.from_json(options.pop("trace_arrays", None))
    token = _SELECTION.set(selection)
    try:
        yield options
    finally:
        _SELECTION.reset(token)
