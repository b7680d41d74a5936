"""Isolated runs: a program runs on an executor in a child process, so a hang or a
crash of user code (or of native code) is an error message, not a dead server.

The parent sends one JSON request on the child's stdin and reads one JSON result
from the child's stdout; the program's output travels inside the result, and the
child's stderr is kept for crash messages. The parent enforces a time limit (the child
is killed) and the child a memory limit (RLIMIT_AS).

    python -m cint_ls.exec.isolated  < request.json  > result.json
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from .faults import FaultRecord
from .runtime import RunResult

DEFAULT_MEMORY_LIMIT = 4 << 30  # bytes


class IsolatedRunError(Exception):
    """The run did not produce a result: time limit, crash, executor unavailable.
    The message is one line that names the cause."""


@dataclass
class Request:
    executor: str
    path: str
    text: str
    fuel: int | None = None
    options: dict | None = None
    memory_limit: int = DEFAULT_MEMORY_LIMIT

    def to_json(self) -> str:
        return json.dumps(self.__dict__)


def result_to_json(result: RunResult) -> dict:
    return {
        "output": result.output,
        "fault": None if result.fault is None else result.fault.to_json(),
        "fuel_consumed": result.fuel_consumed,
        "executor": result.executor,
        "dispatches": result.dispatches,
        "notes": result.notes,
        "trace": result.trace,
    }


def result_from_json(data: dict) -> RunResult:
    fault = data["fault"]
    return RunResult(
        data["output"],
        None if fault is None else FaultRecord.from_json(fault),
        data["fuel_consumed"],
        data["executor"],
        data.get("dispatches", 0),
        list(data.get("notes", [])),
        data.get("trace"),
    )


def _limit_memory(limit: int):
    def apply() -> None:
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ImportError, ValueError, OSError):
            pass
        os.setsid()  # its own process group, so a kill reaches its children too

    return apply


def run_isolated(request: Request, time_limit: float | None = 30.0, cancel=None) -> RunResult:
    """Run in a child process. `cancel`, if given, is polled (a callable returning
    True) to stop the run early. Raises IsolatedRunError."""
    child = subprocess.Popen(
        # -P: the child imports the installed package, never a source tree in the cwd.
        [sys.executable, "-P", "-m", "cint_ls.exec.isolated"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limit_memory(request.memory_limit),
    )
    started = time.monotonic()
    pending: bytes | None = request.to_json().encode()
    while True:
        try:
            # The first call sends the request; retries go on reading (subprocess keeps
            # what it has read across time-outs).
            out, err = child.communicate(input=pending, timeout=0.05)
            break
        except subprocess.TimeoutExpired:
            pending = None
            elapsed = time.monotonic() - started
            if time_limit is not None and elapsed > time_limit:
                _kill(child)
                raise IsolatedRunError(f"the run took longer than {time_limit:g} s and was stopped") from None
            if cancel is not None and cancel():
                _kill(child)
                raise IsolatedRunError("the run was cancelled") from None
    if child.returncode != 0 or not out:
        detail = err.decode("utf-8", "replace").strip().splitlines()
        last = detail[-1] if detail else ""
        if child.returncode < 0:
            name = signal.Signals(-child.returncode).name
            raise IsolatedRunError(f"the {request.executor} run crashed ({name})" + (f": {last}" if last else ""))
        if "MemoryError" in last:
            raise IsolatedRunError(f"the {request.executor} run exceeded its memory limit")
        raise IsolatedRunError(f"the {request.executor} run failed (exit {child.returncode})"
                               + (f": {last}" if last else ""))
    data = json.loads(out)
    if "error" in data:
        raise IsolatedRunError(data["error"])
    return result_from_json(data)


def _kill(child: subprocess.Popen) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        child.kill()
    child.wait()


def child_main() -> int:
    """The child: read the request, build, run, write the result."""
    from ..ir.build import build
    from .executors import ExecutorUnavailable, get

    request = json.loads(sys.stdin.read())
    built = build(request["text"], request["path"])
    if built.program is None:
        first = built.checked.errors[0]
        reply = {"error": f"{first.code} at {first.span.line}:{first.span.column}: {first.message}"}
    else:
        try:
            executor = get(request["executor"])
            admit = executor.options.get("admit")  # an executor that refuses constructs (gpu-cuda)
            refusal = admit(built) if admit is not None else None
            if refusal is not None:
                reply = {"error": refusal.message}
            else:
                result = executor.run(built.program, request.get("fuel"), None, request.get("options") or {})
                reply = result_to_json(result)
        except ExecutorUnavailable as error:
            reply = {"error": str(error)}
    sys.stdout.write(json.dumps(reply))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(child_main())
