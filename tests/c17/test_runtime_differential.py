"""The C run-time against the Python one (cint_ls.exec.arith), operation by operation:
every operation identifier and type of LANGUAGE.md (add/sub/mul checked, wrapping and
saturating, div, rem, shl, shr, neg, abs, min, max, and/or/xor/not, comparisons,
`as` and `as%` between all integer and fixed types, div_round in 7 modes, value text,
every reduction kind with its faults), for I8..I1024, U8..U512 and fixed types from
Q4.4 to Q64.64 and Q1.127, on edge values (0, +-1, MIN, MAX, MIN / -1, shifts by
width - 1 and width) and on values hypothesis chooses.

Each operation is emitted by the cpu-c17 emitter (c17lib.py), so the C under test is
the C programs run: the inline fast path and its fault record (`full` mode), the bare
fault of a kernel's fast path (`fast` mode), and the generic run-time for wide types.
"""

from __future__ import annotations

import json
from itertools import product

import pytest
from c17lib import (
    NUMERIC,
    Case,
    ReductionCase,
    edges,
    encode_fault,
    library_source,
    operation_cases,
    pack,
    reduction_cases,
    size,
    unpack,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cint_ls.analysis.types import BOOL, I64, FixedType
from cint_ls.exec.arith import OperationFault, binary, convert, div_round, make_reducer, unary
from cint_ls.vocabulary.values import format_value

pytestmark = pytest.mark.needs_cc

CASES = operation_cases()
REDUCTIONS = reduction_cases()
BY_KIND: dict[str, list[Case]] = {}
for _case in CASES:
    BY_KIND.setdefault(_case.info["kind"], []).append(_case)

CDEF = """
typedef struct cint_ctx cint_ctx;
cint_ctx *cint_ctx_new(int64_t budget, int trace);
void cint_ctx_free(cint_ctx *ctx);
char *cint_fault_json(cint_ctx *ctx);
void cint_free(void *p);
const char *cint_ctx_output(const cint_ctx *ctx, size_t *length);
int diff_full(int which, cint_ctx *ctx, const void *const *in, void *out);
int diff_fast(int which, cint_ctx *ctx, const void *const *in, void *out);
int diff_reduce(int which, cint_ctx *ctx, int64_t n, const void *values, void *result);
void diff_reset(cint_ctx *ctx);
"""


class Library:
    def __init__(self) -> None:
        import cffi

        from cint_ls.exec.c17.build import build_library

        self.path = build_library(library_source(CASES, REDUCTIONS))
        self.ffi = cffi.FFI()
        self.ffi.cdef(CDEF)
        self.lib = self.ffi.dlopen(str(self.path))
        self.ctx = self.lib.cint_ctx_new(-1, 0)
        self.out = self.ffi.new("char[256]")

    def fault(self) -> dict:
        text = self.lib.cint_fault_json(self.ctx)
        try:
            return json.loads(self.ffi.string(text).decode())
        finally:
            self.lib.cint_free(text)

    def call(self, case: Case, values: list[int], fast: bool = False):
        """('ok', value or printed text) or ('fault', record) or ('fault', None) (fast)."""
        ffi, lib = self.ffi, self.lib
        lib.diff_reset(self.ctx)
        buffers = [ffi.new("char[]", pack(t, v)) for t, v in zip(case.params, values)]
        pointers = ffi.new("void *[]", [ffi.cast("void *", b) for b in buffers] or [ffi.NULL])
        rc = (lib.diff_fast if fast else lib.diff_full)(case.index, self.ctx, pointers, self.out)
        assert rc in (0, 1), f"no C function for {case.key}"
        if rc == 1:
            return "fault", None if fast else self.fault()
        if case.result is None:
            length = ffi.new("size_t *")
            data = lib.cint_ctx_output(self.ctx, length)
            return "ok", ffi.buffer(data, length[0])[:].decode()
        return "ok", unpack(case.result, bytes(ffi.buffer(self.out, size(case.result))))

    def reduce(self, case: ReductionCase, values: list):
        ffi, lib = self.ffi, self.lib
        lib.diff_reset(self.ctx)
        data = b"".join(pack(case.contribution, v) for v in values) or b"\0"
        buffer = ffi.new("char[]", data)
        rc = lib.diff_reduce(case.index, self.ctx, len(values), buffer, self.out)
        assert rc in (0, 1)
        if rc == 1:
            return "fault", self.fault()
        return "ok", unpack(case.target, bytes(ffi.buffer(self.out, size(case.target))))


@pytest.fixture(scope="module")
def library() -> Library:
    return Library()


# ---- the reference


def reference(case: Case, values: list[int]):
    info = case.info
    kind = info["kind"]
    try:
        if kind == "binary":
            value = binary(info["op"], info["form"], info["t"], *values)
        elif kind == "unary":
            value = unary(info["op"], info["t"], values[0])
        elif kind == "compare":
            a, b = values
            value = {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[info["op"]]
        elif kind == "convert":
            value = convert(info["src"], info["dst"], values[0], info["form"])
        elif kind == "div_round":
            value = div_round(info["t"], values[0], values[1], info["mode"])
        else:
            return "ok", f"<{format_value(info['t'], values[0])}>"
    except OperationFault as fault:
        return "fault", encode_fault(fault)
    return "ok", value


def reference_reduce(case: ReductionCase, values: list):
    reducer = make_reducer(case.kind, case.contribution, case.target, case.init)
    try:
        for k, v in enumerate(values):
            reducer.add(v, index=k)
        return "ok", reducer.finish()
    except OperationFault as fault:
        return "fault", encode_fault(fault)


def check(library: Library, case: Case, values: list[int]) -> None:
    want = reference(case, values)
    got = library.call(case, values)
    if got[0] == "fault" and want[0] == "fault":
        got = ("fault", {k: got[1][k] for k in ("code", "operation", "operands", "exact", "limit")})
    assert got == want, f"{case.key}{tuple(values)}: C {got} but Python {want}"
    if case.index in FAST_CASES:
        fast = library.call(case, values, fast=True)
        assert fast == (got if got[0] == "ok" else ("fault", None)), f"fast path of {case.key}{tuple(values)}: {fast}"


FAST_CASES = {c.index for c in CASES if c.result is not None and all(
    (t.bits if hasattr(t, "bits") else 8) <= 64 for t in c.params + [c.result])}


# ---- edge values: every case, every combination of its type's edges


@pytest.mark.parametrize("kind", sorted(BY_KIND))
def test_edges(library, kind):
    for case in BY_KIND[kind]:
        for values in product(*(edges(t) if t != BOOL else [False, True] for t in case.params)):
            check(library, case, list(values))


def test_every_operation_identifier_and_type_is_covered():
    keys = {c.key for c in CASES}
    for t in NUMERIC:
        s = t.suffix
        for op in ("add", "sub", "mul"):
            for form in ("checked", "wrap", "sat"):
                assert f"{op}.{form}.{s}" in keys
        assert {f"div.checked.{s}", f"rem.checked.{s}", f"neg.checked.{s}", f"abs.checked.{s}", f"min.{s}",
                f"max.{s}"} <= keys
        for dst in NUMERIC:
            assert f"as.checked.{s}.{dst.suffix}" in keys
        if not isinstance(t, FixedType):
            assert {f"shl.checked.{s}", f"shr.checked.{s}", f"and.{s}", f"not.{s}"} <= keys
            assert all(f"div_round.{s}.{m}" in keys for m in ("floor", "half_even", "half_trunc"))
    assert len({r.kind for r in REDUCTIONS}) == 7


def test_min_over_minus_one_and_shift_edges(library):
    """The cases the issue names explicitly, on every integer type."""
    for case in CASES:
        info = case.info
        t = info.get("t")
        if t is None or isinstance(t, FixedType) or t == BOOL:
            continue
        if info["kind"] == "binary" and info["op"] in ("div", "rem") and t.signed:
            check(library, case, [t.min, -1])
        if info["kind"] == "binary" and info["op"] in ("shl", "shr"):
            for x in (1, -1 if t.signed else 1, t.max, t.min):
                for k in (t.bits - 1, t.bits):
                    check(library, case, [x, k])


# ---- values hypothesis chooses


def _value(t):
    return st.one_of(st.sampled_from(edges(t)), st.integers(t.min, t.max),
                     st.integers(-(1 << 20), 1 << 20).filter(lambda v: t.min <= v <= t.max))


@st.composite
def _case_and_values(draw, kind):
    case = draw(st.sampled_from(BY_KIND[kind]))
    values = [draw(st.booleans()) if t == BOOL else draw(_value(t)) for t in case.params]
    return case, values


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(BY_KIND))
def test_hypothesis(library, kind):
    @settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(_case_and_values(kind))
    def run(drawn):
        case, values = drawn
        check(library, case, values)

    run()


# ---- reductions


@pytest.mark.parametrize("case", REDUCTIONS, ids=lambda c: c.key)
def test_reduction_edges(library, case):
    t = case.contribution
    pool = [False, True] if t == BOOL else edges(t)
    sequences = [[], [pool[0]], pool, list(reversed(pool)), [max(pool)] * 3, [min(pool)] * 3]
    sequences += [[a, b] for a in pool[:6] for b in pool[:6]]
    for values in sequences:
        want = reference_reduce(case, values)
        got = library.reduce(case, values)
        if got[0] == "fault":
            got = ("fault", {k: got[1][k] for k in ("code", "operation", "operands", "exact", "limit")})
        assert got == want, f"{case.key}{values}: C {got} but Python {want}"


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(st.data())
def test_reduction_hypothesis(library, data):
    case = data.draw(st.sampled_from(REDUCTIONS))
    t = case.contribution
    values = data.draw(st.lists(st.booleans() if t == BOOL else _value(t), max_size=8))
    want = reference_reduce(case, values)
    got = library.reduce(case, values)
    if got[0] == "fault":
        got = ("fault", {k: got[1][k] for k in ("code", "operation", "operands", "exact", "limit")})
    assert got == want, f"{case.key}{values}: C {got} but Python {want}"


def test_the_fold_fault_names_the_contribution_index(library):
    case = next(c for c in REDUCTIONS if c.kind == "fold_checked" and c.contribution == I64 and c.init == 0)
    status, record = library.reduce(case, [1, I64.max, 5])
    assert status == "fault"
    assert record["operands"] == [["I64", "1"], ["I64", "1"], ["I64", str(I64.max)]]
    assert record["exact"] == str(I64.max + 1)
