"""Stepping by counted operation (DAP's `instruction` granularity) and `disassemble`
(issue 30): each operation is one instruction, in the order the machine applies them,
with the step ordinal it takes in the work-item (SPEC-02P.1 5.4) and the static
ordinals `cint emit-ir` prints."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from dap_support import HEAT_E1, DapClient, session

from cint_ls.debug.disassembly import counted
from cint_ls.ir.build import build

pytestmark = pytest.mark.slow  # a debugger per test


@pytest.fixture
def dap() -> Iterator[DapClient]:
    yield from session()


def diffuse_operations() -> list[tuple[int, int, str]]:
    program = build(HEAT_E1.read_text(), str(HEAT_E1)).program
    assert program is not None
    return [(c.span.line, c.span.column, c.op_id) for c in counted(program.kernels["diffuse"])]


def step_operation(dap: DapClient) -> dict:
    dap.request("next", {"threadId": 1, "granularity": "instruction"})
    stop = dap.next_stop()
    assert stop["event"] == "stopped", stop
    return stop


def test_operations_are_stepped_in_evaluation_order_with_their_step_ordinals(dap: DapClient) -> None:
    """From the `lap` statement of interior work-item 9 to its end, each step stops at the
    next operation of `cint emit-ir`'s table, its step ordinal the table's."""
    dap.start(HEAT_E1, breakpoints=[11])
    expected = diffuse_operations()
    for ordinal in range(5, 22):
        step_operation(dap)
        top = dap.top()
        assert (top["line"], top["column"]) == expected[ordinal][:2]
        assert dap.locals()["step"] == str(ordinal)
        assert top["instructionPointerReference"] == hex((2 << 24) | ordinal)  # units: entry, step, diffuse


def test_stepping_by_operation_reaches_the_fault(dap: DapClient) -> None:
    stop = dap.start(HEAT_E1, [{"line": 13, "condition": "y == 2 && x == 4"}])
    assert stop["body"]["reason"] == "breakpoint" and dap.locals()["work-item"] == "20"
    stop = step_operation(dap)  # #22, mul.checked.i64: about to apply
    assert stop["body"]["reason"] == "step" and dap.locals()["step"] == "22"
    assert (dap.top()["line"], dap.top()["column"]) == (13, 33)
    dap.request("next", {"threadId": 1, "granularity": "instruction"})
    fault = dap.next_stop()
    assert fault["body"]["reason"] == "exception" and dap.locals()["step"] == "22"
    assert (dap.top()["line"], dap.top()["column"]) == (13, 33)


def test_an_operation_in_sequential_code(dap: DapClient) -> None:
    dap.start(HEAT_E1, breakpoints=[23])  # `a[3, 4] = 1000;` in step()
    step_operation(dap)
    top = dap.top()
    assert top["name"] == "step" and (top["line"], top["column"]) == (23, 6)  # store.checked


def test_disassemble_gives_exactly_what_was_asked(dap: DapClient) -> None:
    dap.start(HEAT_E1, breakpoints=[11])
    pointer = dap.top()["instructionPointerReference"]
    found = dap.request("disassemble", {"memoryReference": pointer, "instructionOffset": -8,
                                        "instructionCount": 40})["body"]["instructions"]
    assert len(found) == 40
    operations = diffuse_operations()
    shown = [i for i in found if i.get("presentationHint") != "invalid"]
    assert [(i["line"], i["column"], i["instruction"].split()[-1]) for i in shown] == operations
    assert shown[0]["symbol"] == "heat_e1.diffuse" and shown[22]["instruction"].split()[0] == "#22"
    assert found[0].get("presentationHint") == "invalid" and found[-1].get("presentationHint") == "invalid"


@pytest.mark.parametrize("reference", ["nonsense", "0x7f000000"])
def test_disassemble_of_an_address_that_is_not_ours_is_refused(dap: DapClient, reference: str) -> None:
    dap.start(HEAT_E1, breakpoints=[11])
    answer = dap.request("disassemble", {"memoryReference": reference, "instructionCount": 4}, ok=False)
    assert not answer["success"] and answer["message"]
