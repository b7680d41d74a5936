"""gpu-cuda's host in C lives beside gpu-cuda (cint_ls/exec/cuda/rt/), not in cpu-c17's
run-time folder (issue 29, "gpu-cuda's C files beside gpu-cuda"); cpu-c17's toolchain
compiles it from there, and the package ships it."""

from __future__ import annotations

from pathlib import Path

import cint_ls.exec.c17 as c17
import cint_ls.exec.cuda as cuda
from cint_ls.exec.c17.toolchain import RT_GPU_HEADERS, RT_GPU_SOURCES, RT_HEADERS, RT_SOURCES, rt_path


def test_gpu_cudas_c_files_live_beside_gpu_cuda():
    cuda_rt = Path(cuda.__file__).parent / "rt"
    c17_rt = Path(c17.__file__).parent / "rt"
    assert {p.name for p in cuda_rt.iterdir() if p.suffix in (".c", ".h")} == set(RT_GPU_SOURCES + RT_GPU_HEADERS)
    assert not [p.name for p in c17_rt.iterdir() if p.name.startswith("gpu_")]
    for name in RT_SOURCES + RT_HEADERS:
        assert rt_path(name).is_file(), name
        assert rt_path(name).parent == (cuda_rt if name in RT_GPU_SOURCES + RT_GPU_HEADERS else c17_rt)
