"""The whole outcome, not only the printed report: for every conformance case within
Table 3, gpu-cuda on the simulated device gives the reference's output, fault record
(every field: position, stack, address, operands) and fuel, with block sizes 32 and 256
and launches of 256 or 7 work-items, in ascending, descending and shuffled order [Q-3]."""

from __future__ import annotations

import zlib

import pytest
from conftest import conformance_case, conformance_programs
from cuda_support import outcome

from cint_ls.exec.cuda import admit
from cint_ls.exec.cuda import run as run_cuda
from cint_ls.exec.interp import run_program
from cint_ls.ir.build import build


def cases():
    out = []
    for path in conformance_programs():
        built = build(path.read_text(), path.name)
        if built.program is not None and admit(built.checked) is None:
            args, _ = conformance_case(path)
            fuel = int(args[args.index("--fuel") + 1]) if "--fuel" in args else None
            out.append(pytest.param(built.program, fuel, id=path.stem))
    return out


@pytest.mark.parametrize("program,fuel", cases())
def test_same_outcome_as_the_reference(program, fuel):
    reference = outcome(run_program(program, fuel))
    seed = zlib.crc32(program.module.encode())
    for block in (32, 256):
        for order in ("ascending", "descending", "shuffled"):
            for max_launch in (1 << 24, 7):
                result = run_cuda(program, fuel, None, {"device": "sim", "block_size": block, "order": order,
                                                        "seed": seed, "max_launch": max_launch})
                assert outcome(result) == reference, (block, order, max_launch)
