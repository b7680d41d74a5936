"""`--executor auto`: which executor runs a program here, chosen per run, by what the
machine has and, where a GPU could take the run, by measurement (docs/cli.md, "auto").

    decide(built, ptx=...) -> Decision     before the run: the executor and why (one line)
    learn(decision, result) -> str | None  after it: what the run's dispatch times taught

The candidates, in order:

- gpu-cuda, only when a CUDA device is present (not the simulated device: the
  executor's `device_ready` option, exec/cuda/probe.py), gpu-cuda admits the program
  (its capability profile), and the measurements say the GPU wins at the size of the
  program's dispatches;
- cpu-c17, when a C compiler is found (the executor's `ready` option: as cpu-c17 finds
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
rewritten). An explicit executor is never overridden and learns nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import stat
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .executors import ExecutorUnavailable, get

AUTO = "auto"
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
    options: dict = field(default_factory=dict)  # options auto adds to the chosen executor's
    learned: str | None = None  # what the run taught (learn), for the report

    @property
    def line(self) -> str:
        text = f"auto chose {self.executor}: {self.why}"
        return text + (f"; {self.learned}" if self.learned else "")

    def to_json(self) -> dict:
        return {"executor": self.executor, "reason": self.why, "learned": self.learned, "key": self.key}


# ---- what this machine has


def compiler_status() -> tuple[bool, str]:
    """(whether cpu-c17 can compile here, the compiler or why not)."""
    try:
        ready = get(C17).options.get("ready")
    except ExecutorUnavailable as error:
        return False, str(error)
    if ready is None:
        return True, "cpu-c17"
    return ready()


def gpu_status(timeout: float | None = PROBE_TIMEOUT) -> tuple[bool, str]:
    """(whether a CUDA device is present, its description or why not). The simulated
    device does not count."""
    try:
        ready = get(GPU).options.get("device_ready")
    except ExecutorUnavailable as error:
        return False, str(error)
    if ready is None:
        return False, "gpu-cuda cannot say whether a device is present"
    return ready(timeout)


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


def store_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = str(Path.home() / ".cache")
    return Path(base) / "cint-ls" / "auto" / STORE_FILE


def load_store(path: Path | None = None) -> dict:
    """The kept measurements ({key: record}); {} when there are none, or the file is not
    a private regular file of this user's, or it is damaged."""
    path = path or store_path()
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return {}
    try:
        with open(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_size > 8 << 20:
                return {}
            data = json.loads(f.read().decode("utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != STORE_VERSION or not isinstance(data.get("programs"), dict):
        return {}
    return {k: v for k, v in data["programs"].items() if isinstance(v, dict)}


def save_store(programs: dict, path: Path | None = None) -> None:
    """Write the measurements (atomically; the directory private). A cache that cannot
    be written is not an error of the run: nothing is kept."""
    path = path or store_path()
    if len(programs) > STORE_ENTRIES:
        keep = sorted(programs, key=lambda k: _number(programs[k].get("used")) or 0, reverse=True)[:STORE_ENTRIES]
        programs = {k: programs[k] for k in keep}
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(path.parent)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            return
        fd, temporary = tempfile.mkstemp(prefix=".thresholds-", dir=path.parent)
        with open(fd, "w", encoding="utf-8") as f:
            json.dump({"version": STORE_VERSION, "programs": programs}, f, indent=1, sort_keys=True)
        os.replace(temporary, path)
    except OSError:
        return


def _number(value) -> int | float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


# ---- the decision


def decide(admitted: bool, refusal: str | None, kernels_code: str | None, *,
           compiler: tuple[bool, str] | None = None, gpu: tuple[bool, str] | None = None,
           store: dict | None = None) -> Decision:
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
    record = (store if store is not None else load_store()).get(key) or {}
    seen = _number(record.get("seen"))
    cpu_max, gpu_min = _number(record.get("cpu_max")), _number(record.get("gpu_min"))
    measuring = record.get("measuring") if isinstance(record.get("measuring"), dict) else None
    gpu_options = {GPU: {"device": GPU_DEVICE, "report": True}, cpu: {"report": True}}

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
    if measuring is not None and _near(_number(measuring.get("n")), seen) and _number(measuring.get("cpu")):
        return chose(GPU, f"measuring: the CPU took {_ms(measuring['cpu'])} a dispatch at {seen:,} work-items, "
                          f"now {gpu[1]}")
    return chose(cpu, f"measuring: the CPU at {seen:,} work-items first ({cpu_why})")


def _near(n: int | float | None, m: int | float) -> bool:
    """Within a factor of two (xc: a size more than twice or under half as large starts
    the measurement again)."""
    return n is not None and n > 0 and m > 0 and n / 2 <= m <= n * 2


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3g} ms"


def measure(rows: list[dict] | None) -> tuple[int | None, float | None, int]:
    """(the largest dispatch in work-items, seconds per counted dispatch, how many were
    counted) of a run's dispatch log. The first dispatch of each kernel is a warm-up;
    the seconds are None when none is left to count."""
    if not rows:
        return None, None, 0
    largest = max((r.get("work_items") or 0 for r in rows), default=0)
    seen: set[str] = set()
    counted = []
    for row in rows:
        if row.get("kernel") in seen:
            counted.append(float(row.get("seconds") or 0.0))
        seen.add(row.get("kernel"))
    return largest, (sum(counted) / len(counted) if counted else None), len(counted)


def learn(decision: Decision, rows: list[dict] | None, faulted: bool, *, store: dict | None = None,
          save: bool = True) -> str | None:
    """Learn from the run auto chose (its dispatch log), keep it, and say what was learned
    (also in `decision.learned`). Nothing is learned where no GPU was a candidate, from a
    run that faulted or gave no result (rows None), or without counted dispatches; nor
    from one whose dispatches went to a cluster (`--cluster`: its times are the
    cluster's, not this machine's cpu-c17's)."""
    if decision.key is None or rows is None or faulted:
        return None
    if any(row.get("cluster") for row in rows):
        decision.learned = "not measured: the dispatches ran on a cluster"
        return decision.learned
    programs = store if store is not None else load_store()
    record = dict(programs.get(decision.key) or {})
    largest, per_dispatch, counted = measure(rows)
    record["used"] = time.time()
    if largest is None or largest == 0:
        decision.learned = "nothing to measure: the run dispatched no work-items"
    elif per_dispatch is None:
        record["seen"] = largest
        decision.learned = ("not measured: each kernel was dispatched once (the first dispatch of each is a "
                            "warm-up, not counted)")
    else:
        record["seen"] = largest
        decision.learned = _update(record, decision.executor == GPU, largest, per_dispatch, counted)
    programs[decision.key] = record
    if save:
        save_store(programs)
    return decision.learned


def _update(record: dict, on_gpu: bool, n: int, seconds: float, counted: int) -> str:
    cpu_max, gpu_min = _number(record.get("cpu_max")), _number(record.get("gpu_min"))
    measuring = record.get("measuring") if isinstance(record.get("measuring"), dict) else None

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
    cpu_seconds = _number(measuring.get("cpu")) if measuring is not None else None
    if measuring is None or cpu_seconds is None or not _near(_number(measuring.get("n")), n):
        return f"measured nothing new ({_ms(seconds)} a dispatch at {n:,} work-items)"
    if seconds < cpu_seconds:
        gpu_won()
        return f"learned: the GPU wins at {n:,} work-items ({_ms(seconds)} a dispatch, the CPU {_ms(cpu_seconds)})"
    cpu_won()
    return f"learned: the CPU wins at {n:,} work-items ({_ms(cpu_seconds)} a dispatch, the GPU {_ms(seconds)})"
