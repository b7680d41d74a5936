"""A Bool compared with itself (`q == q`, `q != q`, found by the fuzzer): the emitted C has the
comparison's value, since GCC's -Wtautological-compare (an error under -Werror) rejects
a self-comparison in C."""

from __future__ import annotations

import pytest

from cint_ls.exec.c17.library import run
from cint_ls.ir.build import build
from cint_ls.running.executors import get

pytestmark = pytest.mark.needs_cc

TEXT = """
Bool same(Bool q) { return (q == q) && !(q != q); }
kernel k[n](in Bool[n] a, out Bool[n] b) over [i: n] { Bool q = a[i]; b[i] = (q == q) && !(q != q) && q; }
void go() {
    Bool[2] a = [true, false];
    Bool[2] b;
    k(a, b);
    "{same(true)} {same(false)} {b[0]} {b[1]}\\n";
}
go();
"""


def test_a_bool_compared_with_itself():
    program = build(TEXT, "self.ci").program
    result = run(program, None, None, {"threads": 1})
    assert result.output == "true true true false\n"
    assert result.output == get("cpu-sir-interp").run(program, None, None, {}).output
