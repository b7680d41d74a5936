"""`--executor auto`: which executor runs a program here, chosen per run, by what the
machine has and, where a GPU could take the run, by measurement (docs/cli.md, "auto").

    decide(built, ptx=...) -> Decision     before the run: the executor and why (one line)
    learn(decision, result) -> str | None  after it: what the run's dispatch times taught

The candidates, in order:

- gpu-cuda, only when a CUDA device is present (not the simulated device: the
  executor's `ready`, exec/cuda/probe.py), gpu-cuda admits the program
  (its capability profile), and the measurements say the GPU wins at the size of the
  program's dispatches;
- cpu-c17, when a C compiler is found (the executor's `ready`: as cpu-c17 finds
  it, `$CC`, else `cc`, `gcc`, `clang`);
- cpu-sir-interp otherwise.

The choice is per run, not per dispatch: cpu-c17 runs the whole entry in its C run-time
and gpu-cuda the whole entry on its host, each with its own copies of the arrays, so a
dispatch cannot move from one to the other without rewriting both hosts. The choice only
says where the run takes place: every executor gives the same outputs, fuel and fault
record (SPEC-02P.1 clause 4).

Measured as xc's `auto` (its "Which device"): for a program, keyed by a hash of the
hardware (CPU model and cores, the GPUs' models) and a hash of the program's kernels as
the GPU runs them (their PTX), two numbers are kept: the largest dispatch (in
work-items) at which the CPU won and the smallest at which the GPU won. A program whose
largest dispatch of its last run is at least the GPU's smallest win runs on the GPU; at
most the CPU's largest win, on the CPU; in between (or unknown) it runs on the CPU and is
measured, then on the next run on the GPU and is measured, and the faster per dispatch
wins at that size. The first dispatch of each kernel in a run is a warm-up and is not
counted (it pays the module's load, the pool's threads); a run whose counted dispatches
take under a millisecond on the CPU is a CPU win without trying the GPU. A win that
contradicts the other number drops it. The numbers are kept in
`$XDG_CACHE_HOME/cint-ls/auto/thresholds.json` (private; a damaged file is ignored and
rewritten, an absurd value in it ignored as if never learned; updated under a lock, see
"the kept measurements" below). An explicit executor is never overridden and learns
nothing.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import math
import os
import platform
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from ..exec.dispatch import MAX_WORK_ITEMS
from ..exec.executors import ExecutorUnavailable, Options
from ..exec.faults import JsonObject
from ..exec.runtime import DispatchRow
from .executors import get

T = TypeVar("T")
Store = dict[str, JsonObject]  # the kept measurements: a program's key -> its record (valid_record)

GPU, C17, INTERP = "gpu-cuda", "cpu-c17", "cpu-sir-interp"
CPU_WIN_SECONDS = 1e-3  # counted dispatches faster than this on the CPU: the GPU is not tried
GPU_DEVICE = "cuda"  # the device option of a gpu-cuda run auto chose (never the simulated one)
STORE_FILE = "thresholds.json"
STORE_VERSION = 1
STORE_ENTRIES = 1000  # programs kept; the least recently used go first
PROBE_TIMEOUT = 30.0  # seconds auto waits for the CUDA probe (instant where there is no driver)


@dataclass
class Decision:
    """What auto chose for a run, and why (`line`, one line for the report)."""

    executor: str
    why: str
    key: str | None = None  # the measurements' key (hardware, kernels), where a GPU is a candidate
    cpu: str | None = None  # the CPU executor measured against the GPU
    options: Options = field(default_factory=dict)  # options auto adds to the chosen executor's
    learned: str | None = None  # what the run taught (learn), for the report

    @property
    def line(self) -> str:
        text = f"auto chose {self.executor}: {self.why}"
        return text + (f"; {self.learned}" if self.learned else "")

    def to_json(self) -> JsonObject:
        return {"executor": self.executor, "reason": self.why, "learned": self.learned, "key": self.key}


# ---- what this machine has


def compiler_status() -> tuple[bool, str]:
    """(whether cpu-c17 can compile here, the compiler or why not)."""
    try:
        return get(C17).ready()
    except ExecutorUnavailable as error:
        return False, str(error)


def gpu_status(timeout: float | None = PROBE_TIMEOUT) -> tuple[bool, str]:
    """(whether a CUDA device is present, its description or why not). The simulated
    device does not count."""
    try:
        return get(GPU).ready(timeout)
    except ExecutorUnavailable as error:
        return False, str(error)


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _gpu_models() -> list[str]:
    """The NVIDIA GPUs' models, as the driver lists them in /proc (no CUDA call)."""
    base = Path("/proc/driver/nvidia/gpus")
    models = []
    try:
        for entry in sorted(base.iterdir()):
            try:
                for line in (entry / "information").read_text(errors="replace").splitlines():
                    if line.startswith("Model:"):
                        models.append(line.split(":", 1)[1].strip())
            except OSError:
                continue
    except OSError:
        pass
    return models


def cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def hardware_key() -> str:
    """A hash of what the measurements depend on: the CPU's model and cores, the GPUs."""
    text = "\n".join([platform.machine(), _cpu_model(), str(cores()), *_gpu_models()])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def program_key(kernels_code: str) -> str:
    return hardware_key() + "-" + hashlib.sha256(kernels_code.encode()).hexdigest()[:16]


# ---- the kept measurements
#
# The file is data from outside (any process of this user's can write it, a disk can
# damage it): every value read is validated, and one that is not a sane number of its kind
# is dropped as if never learned. Runs update it under a lock (a file beside it), so
# concurrent runs lose no update, and write it through a temporary file renamed into place.


STORE_LIMIT = 8 << 20  # bytes read at most; a larger file is damaged (1000 entries take ~200 KiB)
LOCK_FILE = "thresholds.lock"
LOCK_WAIT = 1.0  # seconds a run waits for another's update before it keeps nothing this time
KEY_LIMIT = 100  # characters of a key (program_key's take 33)
SECONDS_LIMIT = 7 * 24 * 3600.0  # a CPU measurement of a dispatch
TIME_LIMIT = 1e11  # a time.time() of when a program was last used (the year 5138)
_INVALID = object()  # what a NaN, an Infinity or an integer of over 30 digits reads as


def store_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = str(Path.home() / ".cache")
    return Path(base) / "cint-ls" / "auto" / STORE_FILE


def _work_items(value: object) -> int | None:
    """A number of work-items as kept: an integer from 1 to MAX_WORK_ITEMS, else None."""
    return value if type(value) is int and 0 < value <= MAX_WORK_ITEMS else None


def _real(value: object, limit: float, *, zero: bool = False) -> float | None:
    """A finite number in (0, limit] ([0, limit] with `zero`), else None."""
    if not (type(value) is int or type(value) is float) or not math.isfinite(value):
        return None
    return float(value) if (0 <= value if zero else 0 < value) and value <= limit else None


def valid_record(value: object) -> JsonObject | None:
    """What is sane of a kept record: each field of the right type and range, anything
    else dropped as if never learned (None: not a record). Thresholds that contradict
    each other (the CPU winning at a size above the GPU's smallest win) are both dropped."""
    if not isinstance(value, dict):
        return None
    record: JsonObject = {}
    for name in ("seen", "cpu_max", "gpu_min"):
        if (n := _work_items(value.get(name))) is not None:
            record[name] = n
    if "cpu_max" in record and "gpu_min" in record and record["cpu_max"] >= record["gpu_min"]:
        del record["cpu_max"], record["gpu_min"]
    measuring = value.get("measuring")
    if isinstance(measuring, dict):
        n, cpu = _work_items(measuring.get("n")), _real(measuring.get("cpu"), SECONDS_LIMIT)
        if n is not None and cpu is not None:
            record["measuring"] = {"n": n, "cpu": cpu}
    if (used := _real(value.get("used"), TIME_LIMIT, zero=True)) is not None:
        record["used"] = used
    return record


def _valid_programs(programs: JsonObject) -> Store:
    return {key: record for key, value in programs.items()
            if isinstance(key, str) and len(key) <= KEY_LIMIT and (record := valid_record(value)) is not None}


def _parse_int(text: str) -> object:
    return int(text) if len(text) <= 30 else _INVALID


def load_store(path: Path | None = None) -> Store:
    """The kept measurements ({key: record}, each record valid); {} when there are none,
    or the file is not a private regular file of this user's, or it is damaged."""
    path = path or store_path()
    try:  # O_NONBLOCK: a FIFO in the file's place is not waited on
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return {}
    try:
        with open(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_size > STORE_LIMIT:
                return {}
            text = f.read(STORE_LIMIT + 1)  # bounded even if the file grows meanwhile
        if len(text) > STORE_LIMIT:
            return {}
        data = json.loads(text.decode("utf-8"), parse_constant=lambda name: _INVALID, parse_int=_parse_int)
    except (OSError, ValueError, RecursionError):  # RecursionError: nesting deeper than the parser's stack
        return {}
    if (not isinstance(data, dict) or type(data.get("version")) is not int or data["version"] != STORE_VERSION
            or not isinstance(data.get("programs"), dict)):
        return {}
    return _valid_programs(data["programs"])


def save_store(programs: Store, path: Path | None = None) -> str | None:
    """Write the measurements (atomically, only what is valid; the directory private).
    A cache that cannot be written is not an error of the run: nothing is kept, and the
    reason is returned (None: kept). `update_store` calls it under the lock."""
    path = path or store_path()
    programs = _valid_programs(programs)
    if len(programs) > STORE_ENTRIES:
        keep = sorted(programs, key=lambda k: programs[k].get("used", 0.0), reverse=True)[:STORE_ENTRIES]
        programs = {k: programs[k] for k in keep}
    text = json.dumps({"version": STORE_VERSION, "programs": programs}, indent=1, sort_keys=True, allow_nan=False)
    temporary = None
    try:
        why = _private_directory(path.parent) or _in_the_files_place(path)
        if why is not None:
            return why
        fd, temporary = tempfile.mkstemp(prefix=".thresholds-", dir=path.parent)
        with open(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(temporary, path)
        temporary = None
    except OSError as error:
        return f"the thresholds file cannot be written ({error.strerror or error})"
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
    return None


def _private_directory(directory: Path) -> str | None:
    """Make the thresholds' directory (private); None where it is a directory of this
    user's, else why not. Raises OSError where it cannot be made."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        return "the thresholds file's directory is not a directory of this user's"
    return None


def _in_the_files_place(path: Path) -> str | None:
    """None where the file is absent, a file or a link (replaced by the rename), else
    what stands in its place: it is left alone, and nothing is kept."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        return None
    return f"a {'directory' if stat.S_ISDIR(mode) else 'special file'} stands in the thresholds file's place"


def _remove_leftovers(directory: Path) -> None:
    """Remove temporary files a killed run left (under the lock, every writer's temporary
    file is gone by the time it lets go, so any left is an orphan)."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(directory):
            if entry.name.startswith(".thresholds-") and entry.is_file(follow_symlinks=False):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _take_lock(fd: int, wait: float) -> bool:
    """An exclusive flock of `fd` within `wait` seconds (polled: a signal's alarm would
    serve only the main thread, and the server runs in others)."""
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)


def update_store(change: Callable[[Store], T], path: Path | None = None) -> tuple[T, str | None]:
    """Read the measurements, let `change` change them, and write them back, all under
    the lock (the file beside them), so that concurrent runs lose no update. Returns
    (what `change` returned, why nothing was kept or None). Where the lock is not had
    within LOCK_WAIT seconds, or cannot be made, `change` sees the file as it is and
    nothing is kept: a run never waits long on another's update."""
    path = path or store_path()
    try:
        why = _private_directory(path.parent)
        lock = -1 if why else os.open(path.with_name(LOCK_FILE), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW
                                      | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as error:
        why, lock = f"the thresholds file's lock cannot be made ({error.strerror or error})", -1
    try:
        try:
            if lock >= 0 and not stat.S_ISREG(os.fstat(lock).st_mode):
                why = "the thresholds file's lock is not a file"
            elif lock >= 0 and not _take_lock(lock, LOCK_WAIT):
                why = f"another run held the thresholds file's lock for over {LOCK_WAIT:g} s"
        except OSError as error:  # a file system without locks (ENOLCK)
            why = f"the thresholds file cannot be locked ({error.strerror or error})"
        if why is not None:
            return change(load_store(path)), why
        _remove_leftovers(path.parent)
        programs = load_store(path)
        value = change(programs)
        return value, save_store(programs, path)
    finally:
        if lock >= 0:
            os.close(lock)  # lets go of the lock


# ---- the decision


def decide(admitted: bool, refusal: str | None, kernels_code: str | None, *,
           compiler: tuple[bool, str] | None = None, gpu: tuple[bool, str] | None = None,
           store: Store | None = None) -> Decision:
    """The executor for a run. `admitted`: gpu-cuda builds the program (else `refusal`,
    one line); `kernels_code`: the program's kernels as the GPU runs them (None: no
    kernels). `compiler`, `gpu` and `store` default to this machine's (tests give them)."""
    compiler = compiler if compiler is not None else compiler_status()
    cpu = C17 if compiler[0] else INTERP
    cpu_why = f"a C compiler ({compiler[1]})" if compiler[0] else compiler[1]
    if kernels_code is None:
        return Decision(cpu, f"{cpu_why}; no kernels for a GPU")
    gpu = gpu if gpu is not None else gpu_status()
    if not gpu[0]:
        return Decision(cpu, f"{cpu_why}; no GPU: {gpu[1]}")
    if not admitted:
        return Decision(cpu, f"{cpu_why}; {GPU} does not build this program: {refusal}")
    key = program_key(kernels_code)
    record = valid_record((store if store is not None else load_store()).get(key)) or {}
    seen, cpu_max, gpu_min = record.get("seen"), record.get("cpu_max"), record.get("gpu_min")
    measuring = record.get("measuring")
    gpu_options: dict[str, Options] = {GPU: {"device": GPU_DEVICE, "report": True}, cpu: {"report": True}}

    def chose(executor: str, why: str) -> Decision:
        return Decision(executor, why, key, cpu, gpu_options[executor])

    if seen is None:
        return chose(cpu, f"{gpu[1]} present, but this program was not measured here yet: "
                          f"the CPU first ({cpu_why}), measured")
    if gpu_min is not None and seen >= gpu_min:
        return chose(GPU, f"on {gpu[1]}: the GPU won at {gpu_min:,} work-items and the program's largest dispatch "
                          f"had {seen:,} (measured)")
    if cpu_max is not None and seen <= cpu_max:
        return chose(cpu, f"the CPU won at {cpu_max:,} work-items and the program's largest dispatch had {seen:,} "
                          f"(measured); {cpu_why}")
    if measuring is not None and _near(measuring["n"], seen):
        return chose(GPU, f"measuring: the CPU took {_ms(measuring['cpu'])} a dispatch at {seen:,} work-items, "
                          f"now {gpu[1]}")
    return chose(cpu, f"measuring: the CPU at {seen:,} work-items first ({cpu_why})")


def _near(n: int | float | None, m: int | float) -> bool:
    """Within a factor of two (xc: a size more than twice or under half as large starts
    the measurement again)."""
    return n is not None and n > 0 and m > 0 and n / 2 <= m <= n * 2


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def measure(rows: list[DispatchRow] | None) -> tuple[int | None, float | None, int]:
    """(the largest dispatch in work-items, seconds per counted dispatch, how many were
    counted) of a run's dispatch log. The first dispatch of each kernel is a warm-up;
    the seconds are None when none is left to count."""
    if not rows:
        return None, None, 0
    largest = max((r.get("work_items") or 0 for r in rows), default=0)
    seen: set[str | None] = set()  # the kernels dispatched so far
    counted = []
    for row in rows:
        if row.get("kernel") in seen:
            counted.append(float(row.get("seconds") or 0.0))
        seen.add(row.get("kernel"))
    return largest, (sum(counted) / len(counted) if counted else None), len(counted)


def learn(decision: Decision, rows: list[DispatchRow] | None, faulted: bool, *, store: Store | None = None,
          save: bool = True) -> str | None:
    """Learn from the run auto chose (its dispatch log), keep it, and say what was learned
    (also in `decision.learned`). Nothing is learned where no GPU was a candidate, from a
    run that faulted or gave no result (rows None), or without counted dispatches; nor
    from one whose dispatches went to a cluster (`--cluster`: its times are the
    cluster's, not this machine's cpu-c17's). `store`: a store of the caller's, else
    the file's, updated under its lock (update_store); where nothing could be kept, the
    text says why."""
    key = decision.key
    if key is None or rows is None or faulted:
        return None
    if any(row.get("cluster") for row in rows):
        decision.learned = "not measured: the dispatches ran on a cluster"
        return decision.learned

    def into(programs: Store) -> str:
        record = valid_record(programs.get(key)) or {}
        largest, per_dispatch, counted = measure(rows)
        record["used"] = time.time()
        if largest is None or largest == 0:
            said = "nothing to measure: the run dispatched no work-items"
        elif per_dispatch is None:
            record["seen"] = largest
            said = ("not measured: each kernel was dispatched once (the first dispatch of each is a "
                    "warm-up, not counted)")
        else:
            record["seen"] = largest
            said = _update(record, decision.executor == GPU, largest, per_dispatch, counted)
        programs[key] = record
        return said

    if store is not None or not save:
        decision.learned = into(store if store is not None else load_store())
        if store is not None and save:
            save_store(store)
        return decision.learned
    said, not_kept = update_store(into)
    decision.learned = said if not_kept is None else f"{said}; not kept: {not_kept}"
    return decision.learned


def _update(record: JsonObject, on_gpu: bool, n: int, seconds: float, counted: int) -> str:
    cpu_max, gpu_min, measuring = record.get("cpu_max"), record.get("gpu_min"), record.get("measuring")

    def cpu_won() -> None:
        record["cpu_max"] = max(cpu_max or 0, n)
        if gpu_min is not None and gpu_min <= n:  # contradicted: the newer measurement is kept
            record["gpu_min"] = None
        record["measuring"] = None

    def gpu_won() -> None:
        record["gpu_min"] = n if gpu_min is None else min(gpu_min, n)
        if cpu_max is not None and cpu_max >= n:
            record["cpu_max"] = None
        record["measuring"] = None

    if not on_gpu:
        if seconds * counted < CPU_WIN_SECONDS:
            cpu_won()
            return f"learned: the CPU wins at {n:,} work-items ({counted} dispatches in {_ms(seconds * counted)})"
        if (gpu_min is not None and n >= gpu_min) or (cpu_max is not None and n <= cpu_max):
            return f"measured nothing new ({_ms(seconds)} a dispatch at {n:,} work-items)"
        record["measuring"] = {"n": n, "cpu": seconds}
        return f"measured the CPU: {_ms(seconds)} a dispatch at {n:,} work-items; the next run measures the GPU"
    cpu_seconds = measuring["cpu"] if measuring is not None else None
    if measuring is None or cpu_seconds is None or not _near(measuring["n"], n):
        return f"measured nothing new ({_ms(seconds)} a dispatch at {n:,} work-items)"
    if seconds < cpu_seconds:
        gpu_won()
        return f"learned: the GPU wins at {n:,} work-items ({_ms(seconds)} a dispatch, the CPU {_ms(cpu_seconds)})"
    cpu_won()
    return f"learned: the CPU wins at {n:,} work-items ({_ms(cpu_seconds)} a dispatch, the GPU {_ms(seconds)})"
