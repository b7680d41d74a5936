"""Issue 28, finding 9: a fault the threads find too late. Programs where a low
work-item faults and a higher one loops forever without a fuel budget: the reference
(one work-item at a time, ascending) stops at the fault, so every executor must
(SPEC-02P.1 clause 4, 5.5, 9.3). Each run goes to a child process with a deadline, so
that a hang is a failure, not a hung suite."""

from __future__ import annotations

import json
import subprocess
import sys

# A fold_checked that overflows at work-item 1 (MAX + 1), and work-item `loop` that
# never ends: after its reduce (fold_after_...) or before it (..._before_...).
FOLD_THEN_LOOP = """
kernel k[n](in I64[n] a, out I64 s) over [i: n] {{
    reduce s = fold_checked(add, 0, a[i]);
    if (i == {loop}) {{ while (a[i] == 0) {{ }} }}
}}
void run() {{ I64[{n}] a; a[0] = 9223372036854775807; a[1] = 1; I64 s = 0; k(a, s); "{{s}}\\n"; }}
run();
"""

LOOP_THEN_FOLD = """
kernel k[n](in I64[n] a, out I64 s) over [i: n] {{
    if (i == {loop}) {{ while (a[i] == 0) {{ }} }}
    reduce s = fold_checked(add, 0, a[i]);
}}
void run() {{ I64[{n}] a; a[0] = 9223372036854775807; a[1] = 1; I64 s = 0; k(a, s); "{{s}}\\n"; }}
run();
"""

# A division by zero at work-item 0 and a loop that never ends at work-item 33.
DIV_ZERO_THEN_LOOP = """
kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {{
    if (i == 33) {{ while (a[i] == 0) {{ }} }}
    b[i] = div_round(100, a[i], floor);
}}
void run() {{ I64[{n}] a; for j in 0..{n} {{ a[j] = 1; }} a[0] = 0; a[33] = 0; I64[{n}] b; k(a, b); }}
run();
"""

# The executor name that runs gpu-cuda's Python host, the tests' oracle
# (cint_ls/exec/cuda/oracle), instead of an executor.
ORACLE = "gpu-cuda oracle"

_CHILD = """
import json, sys
from cint_ls.exec.cuda.oracle import run as oracle
from cint_ls.running.executors import get
from cint_ls.running.report import render
from cint_ls.ir.build import build
from cint_ls.syntax import SourceText
text, executor = sys.argv[1], sys.argv[2]
program = build(text, "late.ci").program
for options in json.loads(sys.argv[3]):
    result = (oracle if executor == "gpu-cuda oracle" else get(executor).run)(program, None, None, options)
    report = render(SourceText(text, "late.ci"), result.fault) if result.fault is not None else ""
    print(json.dumps([result.output, report, result.fuel_consumed]), flush=True)
"""


def outcomes_in_child(text: str, executor: str, options: list[dict], deadline: float = 60.0) -> list[list]:
    """(output, rendered fault record, fuel) of a run with each of `options`, one
    after the other in a child process; a child that outlives `deadline` seconds fails
    the test, naming the options that did not finish."""
    try:
        # -P: the working directory (a checkout) does not go before the installed package
        done = subprocess.run([sys.executable, "-P", "-c", _CHILD, text, executor, json.dumps(options)],
                              capture_output=True, text=True, timeout=deadline)
    except subprocess.TimeoutExpired as late:
        finished = len((late.stdout or b"").splitlines())
        raise AssertionError(f"{executor} {options[finished] if finished < len(options) else options} did not "
                             f"finish within {deadline} s: the fault was found too late") from None
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def reference_outcome(text: str) -> list:
    from cint_ls.ir.build import build
    from cint_ls.running.executors import get
    from cint_ls.running.report import render
    from cint_ls.syntax import SourceText

    program = build(text, "late.ci").program
    result = get("cpu-sir-interp").run(program, None, None, {})
    assert result.fault is not None
    return [result.output, render(SourceText(text, "late.ci"), result.fault), result.fuel_consumed]
