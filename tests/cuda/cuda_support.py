"""Helpers of the gpu-cuda tests: build a program, run it on the simulated device and on
the reference, and run one dispatch with given arguments on both."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from cint_ls.exec.cuda import run as run_on_c_host
from cint_ls.exec.cuda.oracle import run as run_on_oracle
from cint_ls.exec.cuda.oracle.machine import CudaMachine
from cint_ls.exec.cuda.ptx import emit_module
from cint_ls.exec.cuda.simulator import SimulatedDevice
from cint_ls.exec.interp import run_program
from cint_ls.exec.interp.machine import Machine
from cint_ls.exec.runtime import CintFault
from cint_ls.exec.views import Storage, View
from cint_ls.ir.build import build


def run_cuda(program, fuel=None, write=None, options=None, *, device=None):
    """gpu-cuda's run (its one host, in C), or, with `"host": "python"` in the options (a
    key of these tests only, taken out here), the run of the Python host that the tests
    keep as an oracle against it (cint_ls/exec/cuda/oracle)."""
    options = dict(options or {})
    run = run_on_oracle if options.pop("host", "c") == "python" else run_on_c_host
    return run(program, fuel, write, options, device=device)


def program_of(text: str, path: str = "t.ci"):
    built = build(text, path)
    assert built.program is not None, [d.message for d in built.checked.errors]
    return built.program


def outcome(result):
    return result.output, result.fault, result.fuel_consumed


def both(text: str, fuel: int | None = None, path: str = "t.ci", **options):
    """(reference result, gpu-cuda result on the simulated device)."""
    program = program_of(text, path)
    options.setdefault("device", "sim")
    return run_program(program, fuel), run_cuda(program, fuel, None, options)


class DispatchHarness:
    """One kernel dispatched again and again with chosen arguments, on the reference
    machine and on gpu-cuda's (the simulated device); the module is emitted and loaded
    once."""

    def __init__(self, text: str, kernel: str, **runner) -> None:
        self.program = program_of(text)
        self.kernel = kernel
        self.span = self.program.kernels[kernel].span
        self.device = SimulatedDevice(runner.pop("order", "ascending"), runner.pop("seed", 0))
        self.cuda = CudaMachine(self.program, None, None, self.device, emit_module(self.program), **runner)
        self.ref = Machine(self.program, None, None)

    @staticmethod
    def array(t, values):
        return View.whole(Storage(t, list(values)), [len(values)])

    def _one(self, machine, make_args):
        args = make_args()
        try:
            results = machine.dispatch(self.kernel, args, self.span)
        except CintFault as error:
            f = error.fault
            return ("fault", f.code, f.operation, tuple(f.operands), f.exact, f.limit, error.address)
        outputs = [list(a.storage.values) for a in args if isinstance(a, View)]
        return ("ok", outputs, results)

    def compare(self, make_args):
        """Run on both; `make_args` makes fresh arguments (Views, scalars, None)."""
        return self._one(self.ref, make_args), self._one(self.cuda, make_args)


def find_ptxas() -> str | None:
    """ptxas: $CINT_PTXAS, else on PATH, else inside the PyPI package nvidia-cuda-nvcc
    (`nvidia/cuda_nvcc/bin/ptxas` for CUDA 12, `nvidia/cu13/bin/ptxas` for CUDA 13)."""
    import glob
    import os
    import shutil

    explicit = os.environ.get("CINT_PTXAS")
    if explicit:
        return explicit
    found = shutil.which("ptxas")
    if found:
        return found
    try:
        import nvidia  # namespace package of the NVIDIA wheels
    except ImportError:
        return None
    for root in getattr(nvidia, "__path__", []):
        for candidate in sorted(glob.glob(os.path.join(root, "*", "bin", "ptxas"))):
            if os.access(candidate, os.X_OK):
                return candidate
    return None


# Every construct the emitter knows, on every native type: arithmetic in both forms,
# div_round in every mode, every conversion, loops with break and continue, every
# reduction (ptxas assembles it; the simulated device runs it beside the reference).
KITCHEN_TYPES = ["I8", "I16", "I32", "I64", "U8", "U16", "U32", "U64"]


def kitchen(t: str) -> str:
    out = "I64" if t.startswith("I") else "U64"
    modes = ["floor", "ceil", "trunc", "away", "half_even", "half_away", "half_trunc"]
    q = " + ".join(f"(div_round(a[i], b[i], {m}) as {out})" for m in modes)
    conv = " + ".join(f"((a[i] as {u}) as {out})" for u in KITCHEN_TYPES if u != t)
    return f"""kernel ops_{t.lower()}[n](in {t}[n] a, in {t}[n] b, in Bool[n] f, out {out}[n] r,
        out {t} s1, out {t} s2, out {t} s3, out {t} s4, out I64 s5, out {t} s6, out I64 s7) over [i: n] {{
    {t} x = a[i] + b[i];
    {t} y = a[i] - b[i];
    {t} z = a[i] * b[i];
    {t} w = (a[i] +% b[i]) -% (a[i] *% b[i]);
    {out} acc = 0;
    for j in 0..4 {{
        if (j == 1) {{ continue; }}
        acc = acc +% (w as {out});
        if (f[i] && j > 1 || !f[i] && j == 3) {{ break; }}
    }}
    I64 k = 0;
    while (k < 3) {{ k = k + 1; if (k == 2) {{ continue; }} }}
    {out} d = {q};
    {out} c = {conv};
    r[i] = acc +% d +% c +% (x as {out}) +% (y as {out}) +% (z as {out});
    reduce s1 = sum_sat(a[i]);
    reduce s2 = min(b[i]);
    reduce s3 = max(a[i]);
    reduce s4 = fold_checked(add, 1, a[i]);
    reduce s5 = count(f[i] || a[i] > b[i]);
    reduce s6 = sum_wrap(b[i]);
    reduce s7 = sum(k);
}}
"""


def kitchen_sink() -> str:
    return "".join(kitchen(t) for t in KITCHEN_TYPES)


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory):
    """A stand-in libcuda.so.1 built from fake_libcuda.c, and its handle, held open so
    that its counters live across the host's dlopen/dlclose (tests/cuda/test_c_host.py,
    test_probe_c_host.py import it as their fixture)."""
    compiler = shutil.which("cc") or shutil.which("gcc")
    library = tmp_path_factory.mktemp("fakecuda") / "libcuda.so.1"
    subprocess.run([compiler, "-shared", "-fPIC", "-o", str(library), str(Path(__file__).parent / "fake_libcuda.c")],
                   check=True)
    return library, ctypes.CDLL(str(library))
