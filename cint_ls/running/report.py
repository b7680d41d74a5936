"""The one place a fault record becomes text (LANGUAGE.md "Reports", SPEC-02P.1 5.6 and
its examples): `render` (the report `cint run` prints, the server logs and sends as
`cint/runResult.report`), `summary` (one line: notifications, the editors' run output)
and `diagnostic_message` (the message of the fault's diagnostic in an editor). A host
status (CINT_RESOURCE, SPEC-02P.1 10.5 para 9) goes through the same three. The editor
plugins print these texts; they never format a record themselves.

    fault[E_OVERFLOW]: the exact result is outside the type's range
      --> heat_e1.ci:13:33
       |
    13 |         I64 flux = div_round(kn * lap, kd, half_even);
       |                                 ^ mul.checked.i64
       |
       = operation: mul.checked.i64
       = operand-count: 2
       = operand: I64 2305843009213693952
       = operand: I64 1000
       = exact:   2305843009213693952000
       = limit:   I64 9223372036854775807
       = stack: ...                      (innermost frame first)
       = address: heat_e1.diffuse, dispatch 0, phase 1, work-item 20, step 22
       = fuel-consumed: ... (not part of the fault record)

Formats this project chose where the spec shows none (tested in tests/exec/test_report.py):

- `= view: I32 rank 2, origin 8, extents (8, 8), strides (16, 1), writable` (or
  `read-only`), one line per descriptor, p then q; a rank-1 tuple prints `(8)` as in the
  table of SPEC-02P.1 6.2.
- `= stack: FUNCTION at FILE:LINE:COL`, innermost frame first; FILE is the report's
  source (one module per program until modules are implemented).
- `= revision: R` when the caller passes a revision.
- A record without a position prints `  --> FILE` and the `|` line, no source frame.
- `summary`: `CODE at FILE:LINE:COL: OPERATION (WHERE)` where WHERE is
  `work-item W, step S` in the work-item phase, `entry phase` / `epilogue` in the
  others, and is left out (with its parentheses) for a fault outside a dispatch. A host
  status: `CINT_RESOURCE at FILE:LINE:COL: host.resource (dispatch N): DETAIL`.
- `record.details` (executor notes, not part of the record) are not printed for a
  fault; for a host status they are its observations (`= detail:` lines).
- No text ever shows a missing field as `None`: the address line prints `none` as 5.6
  note 1 does, and the other texts leave the field out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..exec.faults import (
    PHASE_ENTRY,
    PHASE_EPILOGUE,
    Address,
    FaultRecord,
    JsonObject,
    StackFrame,
    TypedValue,
    ViewDescriptor,
)
from ..exec.runtime import DispatchRow, RunResult
from ..exec.words import counted
from ..syntax.report import display_path, frame, gutter_width
from ..syntax.source import SourceText
from ..vocabulary.values import format_exact, format_typed


def _typed(value: TypedValue | None) -> str:
    return "none" if value is None else format_typed(*value)


def _tuple(items: tuple[int, ...]) -> str:
    return f"({', '.join(str(i) for i in items)})"


def format_view(view: ViewDescriptor) -> str:
    """One view descriptor: element, rank, origin, extents, strides, permission."""
    permission = "writable" if view.writable else "read-only"
    return (
        f"{view.element} rank {view.rank}, origin {view.origin}, extents {_tuple(view.extents)},"
        f" strides {_tuple(view.strides)}, {permission}"
    )


def format_address(address: Address) -> str:
    """The address line's text, `none` for a field the phase does not have (5.6 note 1)."""

    def opt(x: int | None) -> str:
        return "none" if x is None else str(x)

    return (
        f"{address.kernel}, dispatch {address.dispatch}, phase {address.phase},"
        f" work-item {opt(address.work_item)}, step {opt(address.step)}"
    )


def record_frame(source: SourceText, record: FaultRecord) -> tuple[list[str], int]:
    """The `-->` line and the frame of a record (the caret labelled with its operation),
    closed by a bare gutter line, and the gutter width the `=` lines indent by. A record
    with no position gets the file alone."""
    if record.span is None:
        width = gutter_width(1)
        return [f"{' ' * width}--> {display_path(source.path)}", f"{' ' * width} |"], width
    width = gutter_width(record.span.line)
    return [*frame(source, record.span, record.operation), f"{' ' * width} |"], width


def render(source: SourceText, record: FaultRecord, *, fuel: bool = True, revision: str | None = None,
           place: Callable[[StackFrame], str] | None = None) -> str:
    """The report of `record` (a fault or a host status), ending in a newline. `fuel`
    adds the fuel-consumed line (`cint run` always does); `revision` adds a
    `= revision:` line; `place` writes a stack frame (default: `FUNCTION at PATH:L:C`,
    every frame in `source`'s file; the workbench's frames lie in several inputs)."""
    if record.is_host_status:
        return _render_host_status(source, record, fuel=fuel)
    path = display_path(source.path)
    framed, width = record_frame(source, record)
    lines = [f"fault[{record.code}]: {record.message}", *framed]
    fields = [
        f"operation: {record.operation}",
        f"operand-count: {len(record.operands)}",
        *(f"operand: {_typed(op)}" for op in record.operands),
        f"exact:   {format_exact(record.exact)}",
        f"limit:   {_typed(record.limit)}",
        *(f"view: {format_view(v)}" for v in record.views),
        *(f"stack: {place(f) if place is not None else f'{f.function} at {path}:{f.span.line}:{f.span.column}'}"
          for f in record.stack),
    ]
    return _report(lines, width, fields + _closing_fields(record, fuel, revision))


def _render_host_status(source: SourceText, record: FaultRecord, *, fuel: bool = True) -> str:
    """The report of a boundary record:

        host[CINT_RESOURCE]: the device failed; the entry ended (not a cint fault)
          --> heat.ci:25:5
        ...
           = operation: host.resource
           = detail: CUDA_ERROR_LAUNCH_TIMEOUT: the launch timed out and was terminated
           = address: heat.diffuse, dispatch 0, phase 1, work-item none, step none
    """
    framed, width = record_frame(source, record)
    lines = [f"host[{record.code}]: {record.message}; the entry ended (not a cint fault)", *framed]
    fields = [f"operation: {record.operation}", *(f"detail: {d}" for d in record.details)]
    return _report(lines, width, fields + _closing_fields(record, fuel))


def _closing_fields(record: FaultRecord, fuel: bool, revision: str | None = None) -> list[str]:
    """The `= address`, `= revision` and `= fuel-consumed` fields that close a report."""
    fields = []
    if record.address is not None:
        fields.append(f"address: {format_address(record.address)}")
    if revision is not None:
        fields.append(f"revision: {revision}")
    if fuel:
        fields.append(f"fuel-consumed: {record.fuel_consumed} (not part of the fault record)")
    return fields


def _report(lines: list[str], width: int, fields: list[str]) -> str:
    """The header and frame `lines`, then each field as an `= ` line under the gutter."""
    indent = " " * (width + 1)
    return "\n".join([*lines, *(f"{indent}= {f}" for f in fields)]) + "\n"


def _module_file(record: FaultRecord) -> str | None:
    """`M.ci` for the module M of the faulting kernel (`heat_e1.diffuse`) or, outside a
    dispatch, of the innermost frame (`budget.run`, `budget entry`); a module is named
    by its file's stem. None when neither names a module."""
    if record.address is not None:
        name = record.address.kernel
    elif record.stack:
        name = record.stack[0].function
    else:
        return None
    if "." not in name and " " not in name:
        return None
    return name.split(" ")[0].split(".")[0] + ".ci"


def _where(address: Address | None, host: bool) -> str:
    """The parenthesized place in a dispatch, or nothing outside one."""
    if address is None:
        return ""
    if host:
        return f" (dispatch {address.dispatch})"
    if address.phase == PHASE_ENTRY:
        return " (entry phase)"
    if address.phase == PHASE_EPILOGUE:
        return " (epilogue)"
    where = [f"work-item {address.work_item}" if address.work_item is not None else None,
             f"step {address.step}" if address.step is not None else None]
    shown = ", ".join(w for w in where if w is not None)
    return f" ({shown})" if shown else f" (dispatch {address.dispatch})"


def summary(record: FaultRecord, *, path: str | None = None) -> str:
    """One line for a notification:
    `E_OVERFLOW at heat_e1.ci:13:33: mul.checked.i64 (work-item 20, step 22)`.

    `path` names the file; without it the file is derived by `_module_file`, and when
    that fails too only LINE:COL prints.
    """
    file = display_path(path) if path is not None else _module_file(record)
    position = f"{record.span.line}:{record.span.column}" if record.span is not None else None
    place = ":".join(p for p in (file, position) if p is not None)
    text = record.code + (f" at {place}" if place else "") + f": {record.operation}"
    text += _where(record.address, record.is_host_status)
    if record.is_host_status and record.details:
        text += f": {record.details[0]}"
    return text


def diagnostic_message(record: FaultRecord, executor: str) -> str:
    """The message of a run's diagnostic at the faulting operator: what happened, the
    operation and its typed operands, the exact result and the limit, and the address
    in the dispatch; for a host status, what the host observed."""
    if record.is_host_status:
        parts = [f"{record.message}; the entry ended (not a cint fault): {record.operation}", *record.details]
    else:
        operands = ", ".join(format_typed(t, v) for t, v in record.operands)
        parts = [f"{record.message}: {record.operation}({operands})"]
        details = []
        if record.exact is not None:
            details.append(f"exact {format_exact(record.exact)}")
        if record.limit is not None:
            details.append(f"limit {format_typed(*record.limit)}")
        if details:
            parts.append(", ".join(details))
    if record.address is not None:
        parts.append(f"at {format_address(record.address)}")
    return "; ".join(parts) + f" [{executor}]"


# ---- the run report (`cint run --report`)
#
#     report: auto chose cpu-c17: a C compiler (gcc (Debian 12.2.0-14) 12.2.0); no GPU: ...
#     report: cpu-c17 on cpu (2 cores), finished in 0.41 s, fuel 10280, 40 dispatches
#     report:   dispatch  kernel             work-items  threads       time     fuel
#     report:          0  heat_tour.diffuse         256        1    15.1 us      256
#
# gpu-cuda's rows (its host in C) add the bytes copied: `to device`, `from device`,
# `already there` (read by the dispatch, kept on the device, not sent again).
#
# cpu-c17's dispatches whose work-items went to a Dask cluster (`--cluster`, docs/cluster.md)
# add a line naming the cluster and its workers (w1, w2, ... by address) and columns:
# `tiles` (came back / sent out), the bytes `sent` to the workers (plan, footprints,
# halos), of what the tiles read the bytes moved between workers (`halo`) and those a
# worker already `held` (residency, windows.py), the bytes `back` from them, the mean
# `tile time` on a worker and `tiles per worker` (`w1 2, w2 2`).
#
# Every line starts with `report: ` (it goes to stderr, beside the program's own
# output on stdout); `render_run_report` renders the JSON form (RunOutcome.run_report).


def device_of(executor: str, result: RunResult | None) -> str:
    """Where a run took place: `cpu` for the CPU executors; for gpu-cuda the device the
    result names (RunResult.device: `NVIDIA H200 (sm_90)`, `the simulated device`), `gpu`
    without a result."""
    if executor != "gpu-cuda":
        return "cpu"
    return "gpu" if result is None or result.device is None else result.device


def _duration(seconds: object) -> str:
    if not isinstance(seconds, (int, float)):
        return "-"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.1f} us"
    if seconds < 1:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds:.2f} s"


def _cell(value: object) -> str:
    return "-" if value is None else str(value)


def _bytes(value: object) -> str:
    """Bytes as `0 B`, `872 B`, `64.0 KB`, `872.4 MB` (powers of 1000), `-` when not recorded."""
    if not isinstance(value, int):
        return "-"
    if value < 1000:
        return f"{value} B"
    for unit in ("KB", "MB", "GB", "TB"):
        value /= 1000
        if value < 1000 or unit == "TB":
            break
    return f"{value:.1f} {unit}"


def _mean_seconds(values: Iterable[object] | None) -> float | None:
    known = [v for v in values or [] if isinstance(v, (int, float))]
    return sum(known) / len(known) if known else None


def _tiles_of(count: int) -> str:
    return f"{count} tile" + ("" if count == 1 else "s")


def _cluster_lines(rows: list[DispatchRow]) -> tuple[list[str], dict[str, str]]:
    """The line that names the cluster of the rows' `cluster` entries (cluster.py
    TileRunner.attach), and the workers' short names (w1, w2, ... in address order)."""
    tiled = [row["cluster"] for row in rows if isinstance(row.get("cluster"), dict)]
    if not tiled:
        return [], {}
    workers: dict[str, int] = {}
    for entry in tiled:
        for worker, count in (entry.get("per_worker") or {}).items():
            workers[worker] = workers.get(worker, 0) + count
    names = {worker: f"w{k + 1}" for k, worker in enumerate(sorted(workers))}
    first = tiled[0]
    where = str(first.get("cluster"))
    if first.get("scheduler") and first.get("scheduler") != first.get("cluster"):
        where += f" (scheduler {first['scheduler']})"
    tiles = sum(int(entry.get("tiles") or 0) for entry in tiled)
    back = sum(int(entry.get("tiles_back") or 0) for entry in tiled)
    sent = sum(int(entry.get("bytes_sent") or 0) for entry in tiled)
    received = sum(int(entry.get("bytes_back") or 0) for entry in tiled)
    mean = _mean_seconds([s for entry in tiled for s in entry.get("tile_seconds") or []])
    dispatches = f"{len(tiled)} recorded dispatch" + ("" if len(tiled) == 1 else "es")
    line = (f"report: cluster {where}: the work-items of {dispatches} in {_tiles_of(tiles)}, {back} came back; "
            "workers: " + (", ".join(f"{names[w]} {w} ({_tiles_of(workers[w])})" for w in sorted(workers)) or "none")
            + f"; {_bytes(sent)} sent, {_bytes(received)} back; {_duration(mean)} per tile on its worker")
    footprints = sum(int(entry.get("footprint_bytes") or 0) for entry in tiled)
    halos = sum(int(entry.get("halo_bytes") or 0) for entry in tiled)
    held = sum(int(entry.get("resident_bytes") or 0) for entry in tiled)
    kept = sum(int(entry.get("kept_bytes") or 0) for entry in tiled)
    checked = sum(int(entry.get("checked") or 0) for entry in tiled)
    wrong = sum(int(entry.get("wrong") or 0) for entry in tiled)
    if any("footprint_bytes" in entry for entry in tiled):
        line += (f"; of what the tiles read, {_bytes(footprints)} went from here (their footprints), {_bytes(halos)} "
                 f"between workers (halos) and {_bytes(held)} was already on the worker; "
                 f"{_tiles_of(checked)} checked here, {wrong} wrong")
    if kept:
        line += f"; {_bytes(kept)} of what they wrote stayed on the workers"
    called = sum(int(entry.get("called") or 0) for entry in tiled)
    if called:
        line += f"; {_tiles_of(called)} sent straight to their worker, not as Dask tasks"
    return [line], names


def _cluster_cells(entry: object, names: dict[str, str]) -> str:
    if not isinstance(entry, dict):
        return f"  {'-':>9}  {'-':>10}  {'-':>10}  {'-':>10}  {'-':>10}  {'-':>10}  -"
    tiles = f"{_cell(entry.get('tiles_back'))}/{_cell(entry.get('tiles'))}"
    spread = ", ".join(f"{names.get(w, w)} {n}" for w, n in sorted((entry.get("per_worker") or {}).items(),
                                                                     key=lambda item: names.get(item[0], item[0])))
    return (f"  {tiles:>9}  {_bytes(entry.get('bytes_sent')):>10}  {_bytes(entry.get('halo_bytes')):>10}  "
            f"{_bytes(entry.get('resident_bytes')):>10}  {_bytes(entry.get('bytes_back')):>10}  "
            f"{_duration(_mean_seconds(entry.get('tile_seconds'))):>10}  {spread or '-'}")


def render_run_report(data: JsonObject) -> str:
    """The text of `cint run --report`: what auto decided, the run, then a row per
    recorded dispatch; and the same for the `--check` run."""
    lines = [f"report: {data['decision']}"]
    ended = data["outcome"] if data.get("error") is None else f"no result ({data['error']})"
    head = f"report: {data['executor']} on {data['device']}, {ended} in {_duration(data['seconds'])}"
    if data.get("fuel") is not None:
        head += f", fuel {data['fuel']}, {counted(data['dispatch_count'], 'dispatch')}"
    lines.append(head)
    rows = data.get("dispatches") or []
    if rows:
        gpu = any(row.get("launches") is not None for row in rows)
        width = max(len("kernel"), *(len(str(row.get("kernel"))) for row in rows))
        # gpu-cuda's host in C records the bytes it copied (rt/gpu_host.c); `-` where a
        # row has none recorded (the oracle in Python, tests only)
        copied = any(isinstance(row.get("copies"), dict) for row in rows)
        count = "launches" if gpu else "threads"
        cluster, names = _cluster_lines(rows)  # cpu-c17's tiles on a Dask cluster (cluster.py)
        lines += cluster
        lines.append(f"report:   {'dispatch':>8}  {'kernel':<{width}}  {'work-items':>10}  {count:>8}  "
                     f"{'time':>10}  {'fuel':>8}"
                     + (f"  {'to device':>10}  {'from device':>11}  {'already there':>13}" if copied else "")
                     + (f"  {'tiles':>9}  {'sent':>10}  {'halo':>10}  {'held':>10}  {'back':>10}  {'tile time':>10}  "
                        "tiles per worker"
                        if cluster else ""))
        for row in rows:
            line = (f"report:   {_cell(row.get('number')):>8}  {_cell(row.get('kernel')):<{width}}  "
                    f"{_cell(row.get('work_items')):>10}  "
                    f"{_cell(row.get('launches') if gpu else row.get('threads')):>8}  "
                    f"{_duration(row.get('seconds')):>10}  {_cell(row.get('fuel')):>8}")
            if copied:
                copies = row.get("copies") if isinstance(row.get("copies"), dict) else {}
                line += (f"  {_bytes(copies.get('to_device')):>10}  {_bytes(copies.get('from_device')):>11}  "
                         f"{_bytes(copies.get('already_there')):>13}")
            if cluster:
                line += _cluster_cells(row.get("cluster"), names)
            lines.append(line)
    recorded, total = data.get("recorded"), data.get("dispatch_count")
    if isinstance(recorded, int) and isinstance(total, int) and total > recorded:
        lines.append(f"report:   ... {total - recorded} later dispatches not recorded (the first {recorded} are)")
    text = "\n".join(lines) + "\n"
    if data.get("checked") is not None:
        checked = render_run_report(data["checked"])
        text += "".join(line.replace("report: ", "report: check: ", 1) + "\n"
                        for line in checked.splitlines()[1:])
    return text
