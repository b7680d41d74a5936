"""The trace of a run (`cint run --trace FILE`, the server's run result): JSON lines.

The trace extends the run report (`RunOutcome.run_report`, docs/cli.md): a `run` line,
then a `dispatch` line per recorded dispatch (start and end, executor, device,
work-items and their over extents, threads or launches, the bytes copied to and from
a device, fuel, the fault's work-item),
an `array` line per 2-D out/inout array marked for pictures (its values after the
dispatch), and a `fault_map` line for a dispatch that faulted in its work-item phase
(which work-items ran, which faulted first). The format is `docs/trace.md`;
`read_trace` checks a file against it and says in one line what is wrong.

The executors take the arrays' pictures as exec/selection.py says; this module turns
what they recorded into the trace's lines.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterable
from typing import Any, Protocol, TextIO, TypeAlias, TypeVar

from ..exec.faults import FaultRecord, JsonObject
from ..exec.runtime import DispatchRow, RunResult
from ..exec.selection import ArraySelection

FORMAT = "cint-trace"
VERSION = 1
SAFE = 2 ** 53  # integers JavaScript's numbers hold exactly


class TraceError(ValueError):
    """A trace file that is not a trace: one line that says where and why."""


# ---------------------------------------------------------------- building the trace


class OutcomeLike(Protocol):
    """What the trace reads of a run's outcome (run.py's RunOutcome, which imports this
    module: a Protocol, not an import that closes a circle)."""

    @property
    def result(self) -> RunResult | None: ...

    @property
    def checked(self) -> OutcomeLike | None: ...

    def run_report(self) -> JsonObject: ...


def _fault_json(fault: FaultRecord | None, path: str | None) -> JsonObject | None:
    if fault is None:
        return None
    address = fault.address
    span = fault.span
    return {
        "code": fault.code,
        "operation": fault.operation,
        "kernel": None if address is None else address.kernel,
        "dispatch": None if address is None else address.dispatch,
        "phase": None if address is None else address.phase,
        "work_item": None if address is None else address.work_item,
        "step": None if address is None else address.step,
        "line": None if span is None else span.line,
        "column": None if span is None else span.column,
    }


def _index(work_item: int, space: list[int]) -> list[int]:
    index: list[int] = []
    rest = work_item
    for extent in reversed(space):
        rest, i = divmod(rest, extent) if extent else (rest, 0)
        index.append(i)
    return index[::-1]


# How a dispatch's work-items ran (its row's `order`), and so which ran when one faulted:
# `ascending`: one after the other in ascending order, stopping at the first fault
# (cpu-sir-interp; cpu-c17 on one thread): those below the canonical work-item ran, those
# above did not. `chunks`: in chunks of ascending work-items on several threads or a
# cluster's tiles, folded in ascending order (cpu-c17's pool, rt/pool.c): every
# work-item below the canonical one ran (its outcome is that of ascending order), but
# chunks above it may have run, in part or whole, before it was found: unknown. None:
# the executor does not say (gpu-cuda: a launch runs its work-items at once, in no
# order, and a work-item may return early on the fault word): only the canonical one is known.
ORDERS = ("ascending", "chunks")


def fault_map(row: DispatchRow, work_item: int) -> JsonObject:
    """Which work-items of a dispatch that faulted in its work-item phase ran, by the
    row's `order` (ORDERS): `ran`, `not run` or `unknown` below and above the canonical
    work-item."""
    count = int(row.get("work_items") or 0)
    before, after = work_item, max(count - work_item - 1, 0)
    order = row.get("order")
    runs: list[tuple[str, int]] = [("ran" if order in ORDERS else "unknown", before), ("canonical", 1),
                                   ("not run" if order == "ascending" else "unknown", after)]
    return {"type": "fault_map", "dispatch": row.get("number"), "kernel": row.get("kernel"),
            "space": row.get("space") or [count], "work_item": work_item,
            "index": _index(work_item, row.get("space") or [count]), "order": row.get("order"),
            "runs": [[state, count] for state, count in runs if count > 0]}


COPIES = ("to_device", "from_device", "already_there")


def copies_of(row: DispatchRow) -> JsonObject | None:
    """A dispatch row's bytes copied between host and device, as gpu-cuda's host in C
    records them (rt/gpu_host.c): `to_device`, `from_device`, `already_there` (read by
    the dispatch, on the device since an earlier one, not sent). None where nothing
    recorded them: cpu-sir-interp and cpu-c17 copy nothing (gpu-cuda's oracle in Python,
    tests only, does not count)."""
    copies = row.get("copies")
    if not isinstance(copies, dict):
        return None
    return {key: copies.get(key) for key in COPIES}


def records(outcome: OutcomeLike, path: str | None = None, arrays_asked: bool = False) -> list[JsonObject]:
    """The trace of a RunOutcome whose run recorded its dispatches (RunRequest.report),
    and of its `checked` run: the lines of the file, in order. `arrays_asked`: pictures
    were asked for (RunRequest.trace_arrays), so a run without them says why."""
    lines: list[JsonObject] = []
    _records(outcome, path, lines, "run", arrays_asked)
    if outcome.checked is not None:
        _records(outcome.checked, path, lines, "checked", arrays_asked)
    return lines


def _records(outcome: OutcomeLike, path: str | None, lines: list[JsonObject], role: str, arrays_asked: bool) -> None:
    report = outcome.run_report()
    result = outcome.result
    rows: list[DispatchRow] = [] if result is None or result.dispatch_log is None else result.dispatch_log
    fault = None if result is None else result.fault
    note = None
    if arrays_asked and rows and not any("arrays" in row for row in rows):
        # every executor takes pictures; a run that took none says why when it knows
        note = next((n for n in (result.notes if result is not None else [])
                     if "no pictures of arrays" in n), None)
    lines.append({
        "type": "run", "format": FORMAT, "version": VERSION, "role": role, "file": path,
        "executor": report["executor"], "device": report["device"], "chosen": report["chosen"],
        "decision": report["decision"], "outcome": report["outcome"], "error": report["error"],
        "seconds": report["seconds"], "fuel": report["fuel"], "dispatch_count": report["dispatch_count"],
        "recorded": report["recorded"], "fault": _fault_json(fault, path), "arrays_note": note,
    })
    faulting, faulting_item = None, 0  # the dispatch whose work-item faulted, and that work-item
    if fault is not None and fault.address is not None and fault.address.work_item is not None:
        faulting, faulting_item = fault.address.dispatch, fault.address.work_item
    for row, line in zip(rows, report["dispatches"]):
        start = row.get("start")
        seconds = row.get("seconds")
        entry: JsonObject = {
            "type": "dispatch", "role": role, "number": row.get("number"), "kernel": row.get("kernel"),
            "executor": line["executor"], "device": line["device"],
            "start": start, "end": None if start is None or seconds is None else start + seconds,
            "seconds": seconds, "work_items": row.get("work_items"), "space": row.get("space"),
            "threads": row.get("threads"), "launches": row.get("launches"),
            "copies": copies_of(row),
            "fuel": row.get("fuel"), "fault": None,
        }
        if fault is not None and fault.address is not None and fault.address.dispatch == row.get("number"):
            entry["fault"] = {"code": fault.code, "phase": fault.address.phase, "work_item": fault.address.work_item,
                              "index": None if fault.address.work_item is None or not row.get("space")
                              else _index(fault.address.work_item, row["space"])}
        lines.append(entry)
        for array in (row.get("arrays") or {}).get("arrays", []):
            lines.append({"type": "array", "role": role, "dispatch": row.get("number"), "kernel": row.get("kernel"),
                          **array})
        if faulting is not None and row.get("number") == faulting and row.get("work_items"):
            lines.append({"role": role, **fault_map(row, faulting_item)})


def unmatched_names(outcome: OutcomeLike, selection: ArraySelection | None) -> tuple[list[str], list[str]]:
    """(names of --trace-arrays that matched no 2-D out/inout array of a dispatch, the
    arrays that could be named) for the CLI's warning."""
    if selection is None or selection.names is None or outcome.result is None:
        return [], []
    rows = outcome.result.dispatch_log or []
    candidates = sorted({f"{row['kernel'].rsplit('.', 1)[-1]}.{name}" for row in rows
                         for name in (row.get("arrays") or {}).get("candidates", [])})
    matched: set[str] = set()
    for row in rows:
        for name in (row.get("arrays") or {}).get("candidates", []):
            for wanted in selection.names:
                if selection.__class__(frozenset([wanted])).wants(row["kernel"], name):
                    matched.add(wanted)
    return sorted(selection.names - matched), candidates


def write_trace(lines: Iterable[JsonObject], stream: TextIO) -> None:
    for line in lines:
        stream.write(json.dumps(line, separators=(",", ":")) + "\n")


# ---------------------------------------------------------------- reading it back
#
# A trace file is data from outside (a file on disk, a client's `cint.tracePage`): every
# line is checked against the whole format below, and what the page is given is only
# the keys the format knows, each of the type it says, so that nothing the page reads
# can stop its script. Anything else is one line: where (the line's number) and why.

# A trace file larger than this is refused unread. The largest trace a run writes holds
# 8 × 2048 × 2048 values (TOTAL_LIMIT) of 64-bit elements, about 21 bytes each with
# its comma, and 10,000 dispatch lines: under 700 MiB.
MAX_TRACE_BYTES = 1 << 30
# No integer in a trace is wider than the widest element type's (I1024, LANGUAGE.md
# "Types": -2^1023 to 2^1023 - 1): 308 decimal digits; longer ones are refused before
# Python converts them (its limit is 4,300), and the page's floats hold every one.
INT_BOUND = 2 ** 1023
_INT_DIGITS = len(str(INT_BOUND))
STATES = ("ran", "canonical", "not run", "unknown")


class _Bad(Exception):
    """Why a value is not what the format says (the reader adds where)."""


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > _INT_DIGITS:
        raise _Bad(f"an integer of {len(text.lstrip('-')):,} digits; a trace's integers are at most "
                   f"{_INT_DIGITS} digits (the widest element type, I1024)")
    return int(text)


def _parse_float(text: str) -> float:
    value = float(text)
    if value != value or value in (float("inf"), float("-inf")):
        raise _Bad(f"the number {text[:40]} is beyond a float's range")
    return value


def _parse_constant(text: str) -> float:
    raise _Bad(f"{text} is not a number a trace holds (JSON has no NaN or Infinity)")


# A check of one value of a parsed line (JSON: any type), returning it as the format
# says or raising _Bad; the combined ones are described in _WHAT for the messages.
T = TypeVar("T")
Check: TypeAlias = Callable[[Any], T]
AnyCheck: TypeAlias = Callable[[Any], object]


def _string(value: object) -> str:
    if not isinstance(value, str):
        raise _Bad("a string")
    return value


def _integer(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Bad("an integer")
    if not -INT_BOUND <= value <= INT_BOUND:
        raise _Bad("an integer of at most 1024 bits")
    return value


def _count(value: object) -> int:
    count = _integer(value)
    if count < 0:
        raise _Bad("an integer 0 or more")
    return count


def _number(value: object) -> int | float:
    if isinstance(value, int) and not isinstance(value, bool):
        return _integer(value)
    if not isinstance(value, float) or value != value or value in (float("inf"), float("-inf")):
        raise _Bad("a finite number")
    return value


def _named(check: Check[T], what: str) -> Check[T]:
    _WHAT[check] = what
    return check


def _nullable(check: Check[T]) -> Check[T | None]:
    def nullable(value: object) -> T | None:
        return None if value is None else check(value)
    return _named(nullable, f"{_what(check)} or null")


def _list_of(check: Check[T], what: str) -> Check[list[T]]:
    def items(value: object) -> list[T]:
        if not isinstance(value, list):
            raise _Bad(what)
        out = []
        for number, item in enumerate(value):
            try:
                out.append(check(item))
            except _Bad as error:
                raise _Bad(f"{what}: element {number} is not {error}") from None
        return out
    return _named(items, what)


def _object(fields: dict[str, AnyCheck], what: str) -> Check[JsonObject]:
    """A JSON object with these fields (each missing one null), its other keys dropped."""
    def obj(value: object) -> JsonObject:
        if not isinstance(value, dict):
            raise _Bad(what)
        out = {}
        for key, check in fields.items():
            try:
                out[key] = check(value.get(key))
            except _Bad as error:
                raise _Bad(f"`{key}` of {what} must be {_what(check)}") from error
        return out
    return _named(obj, what)


def _one_of(*choices: str) -> Check[str]:
    def choice(value: object) -> str:
        if value not in choices or not isinstance(value, str):
            raise _Bad(" or ".join(json.dumps(c) for c in choices))
        return value
    return _named(choice, " or ".join(json.dumps(c) for c in choices))


def _run_state(value: object) -> list[str | int]:
    if not (isinstance(value, list) and len(value) == 2 and value[0] in STATES and isinstance(value[0], str)):
        raise _Bad("a [state, count] pair")
    return [value[0], _count(value[1])]


_WHAT: dict[AnyCheck, str] = {
    _string: "a string", _integer: "an integer", _count: "an integer 0 or more", _number: "a finite number",
    _run_state: "a [state, count] pair"}


def _what(check: AnyCheck) -> str:
    return _WHAT.get(check, "valid")


_str, _int, _num = _nullable(_string), _nullable(_integer), _nullable(_number)
_ints = _list_of(_integer, "a list of integers")
_counts = _list_of(_count, "a list of integers 0 or more")
_LINES: dict[str, dict[str, AnyCheck]] = {
    "run": {
        "format": _string, "version": _integer, "role": _str, "file": _str, "executor": _string, "device": _str,
        "chosen": _str, "decision": _str, "outcome": _string, "error": _str, "seconds": _num, "fuel": _int,
        "dispatch_count": _int, "recorded": _int, "arrays_note": _str,
        "fault": _nullable(_object({"code": _str, "operation": _str, "kernel": _str, "dispatch": _int, "phase": _int,
                                    "work_item": _int, "step": _int, "line": _int, "column": _int}, "a fault")),
    },
    "dispatch": {
        "role": _str, "number": _integer, "kernel": _string, "executor": _string, "device": _str, "start": _num,
        "end": _num, "seconds": _num, "work_items": _nullable(_count), "space": _nullable(_counts),
        "threads": _int, "launches": _int, "fuel": _int,
        "copies": _nullable(_object({key: _nullable(_count) for key in COPIES}, "copies")),
        "fault": _nullable(_object({"code": _str, "phase": _int, "work_item": _int, "index": _nullable(_ints)},
                                   "a fault")),
    },
    "array": {
        "role": _str, "dispatch": _integer, "kernel": _str, "param": _string, "element": _str,
        "shape": _counts, "values": _ints,
    },
    "fault_map": {
        "role": _str, "dispatch": _integer, "kernel": _str, "space": _counts, "work_item": _count, "index": _ints,
        "order": _nullable(_one_of(*ORDERS)), "runs": _list_of(_run_state, "a list of [state, count] pairs"),
    },
}
# The keys a line cannot do without (the others are null when missing).
_REQUIRED = {
    "run": ("format", "version", "executor", "outcome"),
    "dispatch": ("number", "kernel", "executor"),
    "array": ("dispatch", "param", "shape", "values"),
    "fault_map": ("dispatch", "space", "work_item", "index", "runs"),
}


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _line(value: object) -> JsonObject:
    """One line checked against the format: its known keys, each of its type; _Bad for
    anything else."""
    if not isinstance(value, dict) or not isinstance(value.get("type"), str) or value["type"] not in _LINES:
        raise _Bad(f"not a trace line (an object whose `type` is one of {', '.join(_LINES)})")
    kind = value["type"]
    out: JsonObject = {"type": kind}
    for key, check in _LINES[kind].items():
        if key not in value and key in _REQUIRED[kind]:
            raise _Bad(f"{_a(kind)} line needs `{key}` ({_what(check)})")
        try:
            out[key] = check(value.get(key))
        except _Bad as error:
            reason, what = str(error), _what(check)
            if reason.startswith("`"):  # a key of an object inside: it says which
                reason = f"{_a(kind)} line's `{key}`: {reason}"
            else:
                reason = f"{_a(kind)} line's `{key}` must be {what}" + ("" if what.endswith(reason) else
                                                                        reason[reason.find(":"):])
            raise _Bad(reason) from None
    if kind == "array":
        shape = out["shape"]
        if len(shape) != 2 or shape[0] * shape[1] != len(out["values"]):
            raise _Bad("an array's `shape` is [rows, columns] and it has rows × columns `values`")
    elif kind == "fault_map":
        space, size = out["space"], 1
        for extent in space:
            size = min(size * extent, INT_BOUND)  # bounded: a long list of wide extents stays cheap
        if not space or out["work_item"] >= size or len(out["index"]) != len(space):
            raise _Bad("a fault_map's `work_item` is one of its `space`'s, and `index` has an entry per extent")
    return out


def checked_lines(values: list[object], name: str = "the trace", numbers: Iterable[int] | None = None) -> list[JsonObject]:
    """Parsed trace lines checked against the format (the server's `cint.tracePage`
    gets them parsed already): what the page may be given; TraceError (one line, with
    the line's number) for anything else."""
    lines: list[JsonObject] = []
    for number, value in zip(numbers if numbers is not None else itertools.count(1), values):
        try:
            line = _line(value)
        except _Bad as error:
            raise TraceError(f"{name}:{number}: {error}") from None
        if line["type"] == "run":
            if line["format"] != FORMAT:
                raise TraceError(f"{name}:{number}: format {line['format']!r}, not {FORMAT!r}")
            if line["version"] > VERSION:
                raise TraceError(f"{name}:{number}: trace version {line['version']}; this cint reads up to {VERSION}")
        elif not lines:
            raise TraceError(f"{name}:{number}: the first line of a trace is its `run` line")
        lines.append(line)
    if not lines:
        raise TraceError(f"{name}: empty: a trace begins with its `run` line")
    return lines


def read_trace(text: str, name: str = "the trace") -> list[JsonObject]:
    """The lines of a trace file, checked (checked_lines); TraceError (one line) for
    anything else. Lines end at `\\n` only: U+2028 or U+0085 inside a JSON string is text."""
    values: list[object] = []  # parsed JSON, checked by checked_lines
    numbers: list[int] = []
    for number, raw in enumerate(text.split("\n"), 1):
        if not raw.strip(" \t\r"):  # JSON's own white space
            continue
        try:
            values.append(json.loads(raw, parse_int=_parse_int, parse_float=_parse_float,
                                     parse_constant=_parse_constant))
        except json.JSONDecodeError as error:
            raise TraceError(f"{name}:{number}: not JSON ({error.msg}, column {error.colno})") from None
        except _Bad as error:
            raise TraceError(f"{name}:{number}: {error}") from None
        except RecursionError:
            raise TraceError(f"{name}:{number}: nested too deeply for a trace line") from None
        except ValueError as error:  # a number Python will not convert
            raise TraceError(f"{name}:{number}: {error}") from None
        numbers.append(number)
    return checked_lines(values, name, numbers)
