"""What a run does with a built program before and in its process: the entry it starts
from (`with_entry`: the top-level statements, or a call of an exported function without
parameters), the executor's refusal and its code (`refusal`, `emitted`), running it here
(`run_entry`, after the façade admitted the program and put its entry in place) and
bounding its output (`cap_output`).

Below both the façade (run.py) and the child of an isolated run (isolated.py), which
each use it: neither imports the other for these.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..exec.executors import ExecutorUnavailable, Options
from ..exec.runtime import RunResult
from ..exec.selection import selected_arrays
from ..exec.stages import RUNNING, reached
from ..ir import nodes as ir
from .executors import get

if TYPE_CHECKING:  # the parent's: the child of an isolated run neither builds nor admits
    from ..ir.build import Build
    from ..syntax import Diagnostic


class NoSuchEntry(ValueError):
    """The function asked for cannot be an entry: one line that says why."""


def runnable_functions(built: Build) -> list[str]:
    """The functions a run can start from: exported, without parameters."""
    return [name for name, info in built.checked.functions.items() if info.node.export and not info.params]


def with_entry(built: Build, function: str | None) -> ir.Program:
    """The built program, its entry replaced by a call of `function` when one is named.
    Raises NoSuchEntry."""
    program = built.program
    assert program is not None, "only a program without translation errors runs"
    if function is None:
        return program
    info = built.checked.functions.get(function)
    if info is None or not info.node.export:
        known = ", ".join(runnable_functions(built)) or "none"
        what = "no function" if info is None else "no exported function"
        raise NoSuchEntry(f"{what} {function!r} to run (exported functions without parameters: {known})")
    if info.params:
        raise NoSuchEntry(f"{function} takes parameters: only a function without parameters can be run")
    target = program.functions[function]
    # The call's span is the function's name: where the entry's stack frame and the
    # call's fuel charge point.
    call = ir.Call(target.return_type, function, [], target.span)
    entry = ir.Function("<entry>", f"{program.module} entry {function}()", [], [], [], program.entry.return_type,
                        [ir.Eval(target.span, call)], 0, target.span)
    return ir.Program(program.module, program.path, program.functions, program.kernels, entry)


class Refused(ExecutorUnavailable):
    """The executor does not build this program (its capability profile refuses it)."""


def refusal(built: Build, executor_name: str) -> Diagnostic | None:
    """The executor's build error for the program (gpu-cuda: the first construct its
    capability profile refuses), or None. Raises ExecutorUnavailable for an unknown name."""
    return get(executor_name).admit(built)


def emitted(built: Build, executor_name: str) -> str:
    """The code the executor builds from the program (cpu-c17: C17, gpu-cuda: PTX).
    Raises ExecutorUnavailable (Refused when the executor refuses the program)."""
    executor = get(executor_name)
    found = executor.admit(built)
    if found is not None:
        raise Refused(found.message)
    assert built.program is not None, "only a program without translation errors is emitted"
    return executor.emit(built.program)


def cap_output(result: RunResult, limit: int | None) -> RunResult:
    """The result with at most `limit` bytes of output (cut at a character boundary) and
    a note saying so: what a run sends back to an editor is bounded, whatever the
    program prints."""
    if limit is None:
        return result
    data = result.output.encode("utf-8")
    if len(data) <= limit:
        return result
    result.output = data[:limit].decode("utf-8", "ignore")
    result.notes.append(f"output truncated after {limit} bytes (the program printed {len(data)})")
    return result


def run_entry(program: ir.Program, executor_name: str, fuel: int | None, options: Options,
              write: Callable[[str], object] | None = None) -> RunResult:
    """Run a program in this process: built, admitted by the executor and its entry in
    place (`with_entry`), as the façade hands it over (the child of an isolated run calls
    this with the program its parent built). Raises ExecutorUnavailable."""
    executor = get(executor_name)
    if not executor.compiles:
        reached(RUNNING)  # an executor that compiles reports it once compiled
    with selected_arrays(options) as plain:
        return executor.run(program, fuel, write, plain)
