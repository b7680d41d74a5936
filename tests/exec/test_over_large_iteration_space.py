"""Issue 13 item 10: an iteration space of more than MAX(I64) work-items had three
outcomes (the interpreter looped, cpu-c17 a host error, gpu-cuda E_UNSUPPORTED bind.limit;
under a budget the CPU executors gave E_FUEL). N is at most MAX(I64) (SPEC-02P.1 9.1
para 2): a larger space is beyond every executor's limits, refused at entry check 8
before check 9 charges anything, with or without a budget (docs/semantics.md)."""

from __future__ import annotations

import pytest

from cint_ls.exec.dispatch import MAX_WORK_ITEMS
from cint_ls.exec.executors import ExecutorUnavailable
from cint_ls.ir.build import build
from cint_ls.running.executors import get

BEYOND = """
kernel k[n](I64 s, in I64[n] a, out I64 total) over [i: n, j: 4294967296, l: 4294967296] {
    reduce total = sum(a[i] + s);
}
I64[2] a = [1, 2];
I64 t = 0;
"before\\n";
k(3, a, t);
"never\\n";
"""

EDGE = """
kernel k[n](in I64[n] a, out I64 total) over [i: n, j: 2147483648, l: 2147483648] {
    reduce total = count(i > j);
}
I64[2] a;
I64 t = 0;
k(a, t);
"""


EXECUTORS = [("cpu-sir-interp", {}), ("cpu-c17", {"threads": 1}), ("gpu-cuda", {"device": "sim"})]


def run(executor, options, text, fuel):
    built = build(text, "space.ci")
    assert built.program is not None, built.checked.diagnostics
    try:
        return get(executor).run(built.program, fuel, None, dict(options))
    except ExecutorUnavailable as error:  # no C compiler
        pytest.skip(str(error))


@pytest.mark.parametrize("fuel", [None, 1000, MAX_WORK_ITEMS], ids=["unlimited", "budget", "max-budget"])
@pytest.mark.parametrize("executor,options", EXECUTORS, ids=[e for e, _ in EXECUTORS])
def test_more_than_max_i64_work_items_is_bind_limit_everywhere(executor, options, fuel):
    result = run(executor, options, BEYOND, fuel)
    fault = result.fault
    assert result.output == "before\n" and result.fuel_consumed == 0
    assert fault is not None and (fault.code, fault.operation) == ("E_UNSUPPORTED", "bind.limit")
    assert [v for _, v in fault.operands] == [1]  # the first array parameter
    assert fault.address is not None and fault.address.phase == 0
    reference = run("cpu-sir-interp", {}, BEYOND, fuel)
    assert (result.output, result.fault, result.fuel_consumed) == (
        reference.output, reference.fault, reference.fuel_consumed)


@pytest.mark.parametrize("executor,options", EXECUTORS, ids=[e for e, _ in EXECUTORS])
def test_the_limit_is_max_i64_exactly(executor, options):
    """2 * 2^31 * 2^31 = MAX(I64) + 1 work-items is refused (operand 0, the first array
    parameter); MAX(I64) work-items pass check 8 and meet check 9 (E_FUEL)."""
    assert 2 * 2147483648 * 2147483648 == MAX_WORK_ITEMS + 1
    fault = run(executor, options, EDGE, None).fault
    assert (fault.code, fault.operation, [v for _, v in fault.operands]) == ("E_UNSUPPORTED", "bind.limit", [0])
    at_max = EDGE.replace("[i: n, j: 2147483648, l: 2147483648]", f"[i: n, j: {MAX_WORK_ITEMS}]")
    fault = run(executor, options, at_max.replace("I64[2] a;", "I64[1] a;"), 1000).fault
    assert (fault.code, fault.operation) == ("E_FUEL", "fuel.charge")
