"""Issue 13 item 4: emitted C names cannot collide. Kernel `a` emitted `ck_a_run`,
`ck_a_params`, ...; a kernel named `a_run` redeclared them, and cpu-c17 failed with "a
defect of cint-ls". C names now carry the cint name's length (an injective encoding)."""

from __future__ import annotations

import pytest

from cint_ls.running.run import RunRequest, run

pytestmark = pytest.mark.needs_cc

COLLIDING = """kernel a[n](in I64[n] x, out I64[n] y) over [i: n] { y[i] = x[i] + 1; }
kernel a_run[n](in I64[n] x, out I64[n] y) over [i: n] { y[i] = x[i] * 2; }
kernel a_params[n](in I64[n] x, out I64[n] y) over [i: n] { y[i] = x[i] * 3; }
I64 a_run_f(I64 v) { return v + 10; }
I64 f(I64 v) { return v + 20; }
void go() {
    I64[3] x = [1, 2, 3];
    I64[3] p;
    I64[3] q;
    I64[3] r;
    a(x, p);
    a_run(x, q);
    a_params(x, r);
    "{p[2]} {q[2]} {r[2]} {a_run_f(1)} {f(1)}\\n";
}
go();
"""


@pytest.mark.parametrize("executor", ["cpu-c17", "gpu-cuda"])
def test_kernels_whose_names_extend_each_other(executor):
    outcome = run(RunRequest("names.ci", COLLIDING, executor, check="cpu-sir-interp",
                             options={"gpu-cuda": {"device": "sim"}}))
    assert outcome.error is None and not outcome.diagnostics
    assert outcome.result.output == "4 6 9 11 21\n"
    assert outcome.comparison is not None and outcome.comparison.agree, outcome.comparison.line
