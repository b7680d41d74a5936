"""The vocabulary (cint_ls.vocabulary) against LANGUAGE.md "Expressions": the faults of
each operation identifier, the operator table, and value text spelled by type suffix.
(Identifier forms are tested with the run-time that raises them, tests/exec/test_arith.py.)"""

from __future__ import annotations

import pytest

from cint_ls.analysis.types import BOOL, I8, I32, I64, U8, ArrayType, FixedType
from cint_ls.vocabulary.operations import INDEX_ID, STORE_ID, operation_faults, reduction_faults, reduction_id, suffix
from cint_ls.vocabulary.operators import BINARY_OPERATORS, CONVERSION_OPERATORS, UNARY_OPERATORS
from cint_ls.vocabulary.values import format_typed, format_value


def codes(faults) -> list[str]:
    return [f.code for f in faults]


@pytest.mark.parametrize("identifier,expected", [
    ("add.checked.i64", ["E_OVERFLOW"]),
    ("mul.checked.q16.16", ["E_OVERFLOW"]),
    ("div.checked.i64", ["E_DIV_ZERO", "E_OVERFLOW"]),
    ("rem.checked.u8", ["E_DIV_ZERO"]),
    ("add.wrap.i64", []),
    ("sub.sat.i8", []),
    ("neg.checked.i64", ["E_OVERFLOW"]),
    ("shl.checked.i64", ["E_SHIFT", "E_OVERFLOW"]),
    ("shr.checked.i64", ["E_SHIFT"]),
    ("as.checked.i64.i32", ["E_NARROW"]),
    ("as.wrap.i64.i32", []),
    ("div_round.checked.i64.half_even", ["E_DIV_ZERO", "E_OVERFLOW"]),
    ("min.i64", []),
    ("abs.checked.i64", ["E_OVERFLOW"]),
    (INDEX_ID, ["E_BOUNDS"]),
    (STORE_ID, ["E_BOUNDS"]),
])
def test_the_faults_of_each_operation(identifier, expected):
    assert codes(operation_faults(identifier)) == expected


def test_a_reduction_faults_by_its_kind_in_the_epilogue():
    # `min.i64` names the built-in (no fault) and the reduction (E_EMPTY) alike.
    assert reduction_id("min", I64, I64) == "min.i64"
    assert [str(f) for f in reduction_faults("min")] == ["E_EMPTY (in the epilogue, when no work-item contributes)"]
    assert [str(f) for f in reduction_faults("sum")] == ["E_OVERFLOW (in the epilogue)"]
    assert codes(reduction_faults("fold_checked")) == ["E_OVERFLOW"]
    assert reduction_faults("sum_wrap") == reduction_faults("sum_sat") == ()


def test_the_operator_table():
    counted = {op for table in (BINARY_OPERATORS, UNARY_OPERATORS) for op, o in table.items() if o.counted}
    # LANGUAGE.md "Counted operations": not comparisons, `&& || !`, `& | ^ ~`.
    assert counted == {"+", "-", "*", "/", "%", "+%", "-%", "*%", "+|", "-|", "*|", "<<", ">>"}
    assert BINARY_OPERATORS["*|"].family == "mul.sat"
    assert BINARY_OPERATORS["<="].family == "compare"
    assert UNARY_OPERATORS["-"].family == "neg.checked"
    assert {op: o.family for op, o in CONVERSION_OPERATORS.items()} == {
        "as": "as.checked", "as%": "as.wrap", "as?": "as.result"}


def test_value_text_by_suffix():
    assert format_value(BOOL, True) == "true"
    assert format_value(U8, 255) == "255"
    assert format_value(FixedType(8, 0), -5) == "-5.0"  # fixed with no fraction bits still has one digit
    assert format_typed(FixedType(16, 16), -3 << 14) == "Q16.16 -0.75"
    with pytest.raises(TypeError):
        format_value(ArrayType(I32, 1), 0)


def test_a_type_no_operation_acts_on_has_no_suffix():
    assert suffix(I8) == "i8"
    with pytest.raises(ValueError):
        suffix(ArrayType(I32, 1))
