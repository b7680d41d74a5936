"""gpu-cuda on the heat kernel of SPEC-02P.1 clause 11, on an 8192 x 8192 grid, beside two
hand-written CUDA versions of the same step. Needs an NVIDIA GPU, its driver and
cuda-python (`pip install 'cint-ls[cuda]'`); the hand-written versions are compiled at
run time with NVRTC (`pip install nvidia-cuda-nvrtc`) and are skipped, saying why,
without it. Without a GPU it stops with one line (exit 2).

Measures, per step (h * w work-items), each the median of `--repeat` repetitions made
outside any dispatch (every one starts from the same input, so each is the same work):

- gpu-cuda, kernel: the emitted PTX launched alone (checked 64-bit arithmetic, the fault
  word, the index tuple in 32 bits, the reduction combined per block on the device) and
  the whole reduction: the fault word and the block slots set before the launch and
  read back after it (the host's merge of the slots, a few additions per block, is in
  the dispatch line);
- gpu-cuda, whole dispatch: `cint run --executor gpu-cuda --device cuda` of the step
  (the C host: copies to and from the device, the launch, the scans, the exact sum, the
  publication), each dispatch's time from the run report;
- hand-written CUDA: the step in CUDA C++ (64-bit indices and arithmetic without
  overflow checks, round half to even, a warp and block reduction and one atomicAdd per
  block for the total), total reset, launch and total read back;
- hand-written CUDA, tuned: the same with 32-bit indices and a 2-D grid (the row and
  column from the block and thread indices, no division), the stronger baseline.

Each grid and total after one step is compared with gpu-cuda's.

    python benchmarks/heat_gpu.py [--size 8192] [--steps 1] [--repeat 10] [--block-size 256]
    python benchmarks/heat_gpu.py --device sim --size 64     # the script itself, without a GPU
    python benchmarks/heat_gpu.py --ptx-figures               # the emitted code's figures (ptxas, no GPU)
    python benchmarks/heat_gpu.py --device null --size 8192     # gpu-cuda's C host's own cost (no GPU)
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from heat_kernel import heat_kernel

from cint_ls.analysis.types import I32, I64, U64
from cint_ls.exec.cuda.device import Device, DeviceError, DeviceUnavailable
from cint_ls.exec.cuda.oracle.launches import combine_slots
from cint_ls.exec.cuda.oracle.placement import pack, registers, unpack
from cint_ls.exec.cuda.ptx import M64, canonical, emit_module
from cint_ls.exec.cuda.simulator import SimulatedDevice
from cint_ls.exec.executors import ExecutorUnavailable
from cint_ls.ir.build import build

HEAT = heat_kernel()

_REDUCE = r"""
    // the block's total: a warp reduction, then the warps' partials, one atomicAdd
    for (int offset = 16; offset > 0; offset /= 2) r += __shfl_down_sync(0xffffffffu, r, offset);
    if ((t & 31) == 0) partial[t / 32] = r;
    __syncthreads();
    if (t < 32) {
        r = t < (threads + 31) / 32 ? partial[t] : 0;
        for (int offset = 16; offset > 0; offset /= 2) r += __shfl_down_sync(0xffffffffu, r, offset);
        if (t == 0) atomicAdd(total, (unsigned long long)r);
    }
"""

_ROUND = r"""
            if (rem != 0) {  /* round half to even */
                unsigned long long ar = rem < 0 ? 0ull - (unsigned long long)rem : (unsigned long long)rem;
                unsigned long long ab = kd < 0 ? 0ull - (unsigned long long)kd : (unsigned long long)kd;
                long long s = ((num < 0) != (kd < 0)) ? -1 : 1;
                if (ar > ab - ar || (ar == ab - ar && (q & 1))) q += s;
            }
"""

HAND_WRITTEN = r"""
extern "C" __global__ void heat(const int *__restrict__ u, int *__restrict__ v, long long h, long long w,
                                long long kn, long long kd, unsigned long long *total) {
    __shared__ long long partial[32];
    int t = threadIdx.x, threads = blockDim.x;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long r = 0;
    if (i < h * w) {
        long long y = i / w, x = i % w;
        long long c = u[i];
        r = c;
        if (y > 0 && y < h - 1 && x > 0 && x < w - 1) {
            long long lap = (long long)u[i - w] + u[i + w] + u[i - 1] + u[i + 1] - 4 * c;
            long long num = kn * lap;
            long long q = num / kd, rem = num % kd;
""" + _ROUND + r"""
            r = (int)(c + q);
        }
        v[i] = (int)r;
    }
""" + _REDUCE + "}\n"

# The tuned version: a 2-D grid of 2-D blocks (32 columns by blockDim.y rows), 32-bit
# indices (h * w < 2**31), the remainder from the quotient.
TUNED = r"""
extern "C" __global__ void heat_tuned(const int *__restrict__ u, int *__restrict__ v, int h, int w,
                                      long long kn, long long kd, unsigned long long *total) {
    __shared__ long long partial[32];
    int t = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    long long r = 0;
    if (x < w && y < h) {
        int i = y * w + x;
        int c = __ldg(u + i);
        r = c;
        if (y > 0 && y < h - 1 && x > 0 && x < w - 1) {
            long long lap = (long long)__ldg(u + i - w) + __ldg(u + i + w) + __ldg(u + i - 1) + __ldg(u + i + 1)
                - 4 * (long long)c;
            long long num = kn * lap;
            long long q = num / kd, rem = num - q * kd;
""" + _ROUND + r"""
            r = (int)(c + q);
        }
        v[i] = (int)r;
    }
""" + _REDUCE + "}\n"


def grid(size: int) -> list[int]:
    """A hot spot of 65536 in the middle of a cold grid, and a warm ring."""
    values = [0] * (size * size)
    for x in range(size):
        values[(size // 4) * size + x] = 1000
    values[(size // 2) * size + size // 2] = 65536
    return values


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def gpu_cuda_kernel(device: Device, size: int, repeat: int, block: int):
    """The emitted entry launched alone over the whole grid, with its whole reduction:
    (median seconds, median seconds of the launch alone, the grid after one step, the
    exact total, the block used).
    Each repetition sets the fault word and the block slots, launches, and reads the
    word and the slots back; the slots are merged (untimed) into the exact total."""
    program = build(HEAT, "heat_gpu.ci").program
    assert program is not None
    module = emit_module(program)
    code = module.kernels["diffuse"]
    function = device.load(module.text).function(code.entry)
    block = min(block, getattr(function, "max_threads", 0) or block)
    n = size * size
    blocks = -(-n // block)
    u, v, fault = device.alloc(4 * n), device.alloc(4 * n), device.alloc(8)
    slots = device.alloc(8 * code.slot_words * blocks)
    device.upload(u, pack(I32, grid(size)))
    # The heat kernel's parameters: diffuse(in I32[h, w] u, I64 kn, I64 kd, out I32[h, w] v, out I64 total).
    values = {("first",): 0, ("end",): n, ("fault",): fault, ("size", 0): size, ("size", 1): size, ("over", 1): size,
              ("scalar", 1): canonical(I64, 1), ("scalar", 2): canonical(I64, 8), ("read", 0): u, ("origin", 0): 0,
              ("write", 3): v, ("slots",): slots}
    for d, stride in enumerate((size, 1)):
        for p in (0, 3):
            values[("extent", p, d)] = size
            values[("stride", p, d)] = stride
        values[("wstride", 3, d)] = stride
    if code.block:
        raise SystemExit("heat_gpu: the heat kernel's parameters do not fit the entry (internal error)")
    params = [values[(p.kind, *p.index)] for p in code.params]
    samples, launches = [], []
    word = M64
    for _ in range(repeat):
        started = time.perf_counter()
        device.upload(fault, M64.to_bytes(8, "little"))
        device.fill(slots, 0, 8 * code.slot_words * blocks)
        launched = time.perf_counter()
        device.launch(function, blocks, block, params)
        launches.append(time.perf_counter() - launched)
        word = int.from_bytes(device.download(fault, 8), "little")
        raw = device.download(slots, 8 * code.slot_words * blocks)
        samples.append(time.perf_counter() - started)
    if word != M64:
        raise SystemExit(f"heat_gpu: work-item {word} of the heat step faulted on the device")
    ((_, total), *_) = combine_slots(code, program.kernels["diffuse"], registers(U64, raw))[0]
    result = unpack(I32, device.download(v, 4 * n))
    for address in (u, v, fault, slots):
        device.free(address)
    return statistics.median(samples), statistics.median(launches), result, total, block


def nvrtc_compile(device, source: str, name: str) -> str:
    """The PTX of CUDA C++ `source` for the device's architecture, by NVRTC; RuntimeError
    with one line (the compiler's log, when it refused the source) otherwise."""
    try:
        from cuda.bindings import nvrtc
    except ImportError:
        try:
            from cuda import nvrtc  # older cuda-python
        except ImportError:
            raise RuntimeError("cuda-python's NVRTC bindings are not installed") from None

    def check(result, call: str):
        result = result if isinstance(result, tuple) else (result,)
        if int(result[0]) != 0:
            raise RuntimeError(f"{call} failed ({result[0]})")
        return result[1] if len(result) == 2 else result[1:]

    cu = device.cu
    attribute = cu.CUdevice_attribute
    major = device.call("cuDeviceGetAttribute", attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device.dev)
    minor = device.call("cuDeviceGetAttribute", attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device.dev)
    try:
        program = check(nvrtc.nvrtcCreateProgram(source.encode(), f"{name}.cu".encode(), 0, [], []),
                        "nvrtcCreateProgram")
    except RuntimeError:
        raise
    except Exception as error:  # noqa: BLE001 - NVRTC's library missing, and the like
        raise RuntimeError(f"NVRTC is not available ({type(error).__name__}: {error}); "
                           "pip install nvidia-cuda-nvrtc") from None
    try:
        options = [f"--gpu-architecture=compute_{major}{minor}".encode(), b"-O3"]
        (status,) = nvrtc.nvrtcCompileProgram(program, len(options), options)
        if int(status) != 0:
            size = check(nvrtc.nvrtcGetProgramLogSize(program), "nvrtcGetProgramLogSize")
            log = b" " * size
            check(nvrtc.nvrtcGetProgramLog(program, log), "nvrtcGetProgramLog")
            text = " | ".join(line for line in log.decode(errors="replace").strip("\0 \n").splitlines() if line)
            raise RuntimeError(f"NVRTC could not compile {name} ({status}): {text}")
        size = check(nvrtc.nvrtcGetPTXSize(program), "nvrtcGetPTXSize")
        ptx = b" " * size
        check(nvrtc.nvrtcGetPTX(program, ptx), "nvrtcGetPTX")
    finally:
        nvrtc.nvrtcDestroyProgram(program)
    return ptx.rstrip(b"\0 ").decode()


def launch_2d(device, function, grid: tuple[int, int], block: tuple[int, int], params: list[tuple]) -> None:
    """cuLaunchKernel with a 2-D grid and block (the Device interface launches 1-D grids);
    `params` as (ctypes type, value) pairs."""
    import ctypes

    values = [kind(value) for kind, value in params]
    pointers = (ctypes.c_void_p * len(values))(*(ctypes.addressof(v) for v in values))
    device.call("cuLaunchKernel", function.handle, grid[0], grid[1], 1, block[0], block[1], 1, 0, None,
                ctypes.addressof(pointers), 0)
    device.call("cuCtxSynchronize")


def run_hand_written(device, size: int, repeat: int, block: int, tuned: bool):
    """(median seconds, the grid after one step, the total), or the reason it cannot run."""
    import ctypes

    name = "heat_tuned" if tuned else "heat"
    if tuned and size * size >= 1 << 31:
        return f"its 32-bit indices need fewer than 2**31 work-items, not {size * size:,}"
    try:
        ptx = nvrtc_compile(device, TUNED if tuned else HAND_WRITTEN, name)
        function = device.load(ptx).function(name)
    except (RuntimeError, DeviceError) as error:
        return str(error)
    n = size * size
    u, v, total = device.alloc(4 * n), device.alloc(4 * n), device.alloc(8)
    device.upload(u, pack(I32, grid(size)))
    samples = []
    rows = max(1, block // 32)
    for _ in range(repeat):
        started = time.perf_counter()
        device.fill(total, 0, 8)
        if tuned:
            launch_2d(device, function, (-(-size // 32), -(-size // rows)), (32, rows),
                      [(ctypes.c_uint64, u), (ctypes.c_uint64, v), (ctypes.c_int32, size), (ctypes.c_int32, size),
                       (ctypes.c_int64, 1), (ctypes.c_int64, 8), (ctypes.c_uint64, total)])
        else:
            device.launch(function, -(-n // block), block, [u, v, size, size, 1, 8, total])
        value = int.from_bytes(device.download(total, 8), "little", signed=True)
        samples.append(time.perf_counter() - started)
    result = unpack(I32, device.download(v, 4 * n))
    for address in (u, v, total):
        device.free(address)
    return statistics.median(samples), result, value


def reference_step(size: int) -> tuple[list[int], int]:
    """The grid and the total after one step, by the reference interpreter."""
    from cint_ls.exec.interp.machine import Machine
    from cint_ls.exec.views import Storage, View

    program = build(HEAT, "heat_gpu.ci").program
    assert program is not None
    u = View.whole(Storage(I32, grid(size)), [size, size])
    v = View.whole(Storage(I32, [0] * (size * size)), [size, size])
    results = Machine(program, None, None).dispatch("diffuse", [u, 1, 8, v, None], program.kernels["diffuse"].span)
    return list(v.storage.values), results[4]


def whole_dispatch(device: str, size: int, steps: int, block: int):
    """Each dispatch's seconds of the step run as a program on the C host, or why not."""
    from cint_ls.exec.cuda import run

    program = build(host_program(size, steps), "heat_steps.ci").program
    assert program is not None
    n = size * size
    try:
        result = run(program, None, None, {"device": device, "host": "c", "block_size": block, "report": True,
                                           "max_launch": n})
    except ExecutorUnavailable as error:
        return str(error)
    if result.fault is not None:
        return f"the run faulted: {result.fault.code} {result.fault.operation}"
    return [row["seconds"] for row in result.dispatch_log or []], result.output.strip()


def _elf_sections(data: bytes) -> dict[str, int]:
    """Section name -> size, of a 64-bit little-endian ELF (a cubin)."""
    import struct

    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + k * shentsize) for k in range(shnum)]
    names = headers[shstrndx][4]
    out = {}
    for h in headers:
        end = data.index(b"\0", names + h[0])
        out[data[names + h[0]:end].decode()] = h[5]
    return out


def find_nvdisasm(ptxas: str | None) -> str | None:
    """nvdisasm: $CINT_NVDISASM, else on PATH, else beside ptxas (the PyPI package
    nvidia-cuda-nvdisasm installs into the same nvidia/cu13/bin)."""
    import os
    import shutil

    named = os.environ.get("CINT_NVDISASM")
    if named:
        return named
    found = shutil.which("nvdisasm")
    if found:
        return found
    if ptxas:
        beside = os.path.join(os.path.dirname(ptxas), "nvdisasm")
        if os.path.exists(beside):
            return beside
    return None


def sass_figures(nvdisasm: str, cubin: str) -> str:
    """The entry's instructions before its first division subroutine, the
    subroutines', and the calls of them (nvdisasm's listing)."""
    import re
    import subprocess

    listing = subprocess.run([nvdisasm, "-c", cubin], capture_output=True, text=True, check=True).stdout
    body = subroutines = calls = 0
    inside = False
    for line in listing.splitlines():
        if re.match(r"^\$__internal\w*\$?\w*:", line.strip()):
            inside = True
        if re.match(r"\s+/\*[0-9a-f]{4,}\*/", line):
            subroutines += inside
            body += not inside
            calls += "CALL" in line
    return f"nvdisasm: entry {body}, division subroutines {subroutines}, call sites {calls}"


def ptx_figures() -> int:
    """What the emitted PTX of the heat kernel costs, without a GPU: its divisions (the
    kernel has no loop, so an interior work-item makes each once: the 32-bit one when
    the values fit, which ptxas inlines, else the 64-bit one, a call of ptxas's division
    subroutine), its element loads and reduction, and for sm_75 and sm_90 ptxas -v's
    registers and the machine code's size (the cubin's .text sections; 16 bytes an
    instruction on these architectures), split by nvdisasm when it is there."""
    import os
    import re
    import subprocess
    import tempfile

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "cuda"))
    from cuda_support import find_ptxas

    module = emit_module(build(HEAT, "heat.ci").program)
    body = module.text
    wide = re.findall(r"^\t(?:@%p\d+ )?((?:div|rem)\.[su]64)", body, re.MULTILINE)
    narrow = re.findall(r"^\t(?:@%p\d+ )?((?:div|rem)\.u32)", body, re.MULTILINE)
    print(f"PTX: {len(body.splitlines())} lines; divisions per interior work-item: {len(narrow)} in 32 bits when "
          f"the values fit ({', '.join(narrow)}), else {len(wide)} in 64 bits ({', '.join(wide)})")
    loads = re.findall(r"^\tld\.global(\.nc)?\.u", body, re.MULTILINE)
    reds = re.findall(r"^\t(red\.global\.\w+\.u64)", body, re.MULTILINE)
    per_item = [p.name for p in module.kernels["diffuse"].params if p.kind in ("contrib", "mark")]
    print(f"PTX: element loads {len(loads)}, of which ld.global.nc {sum(1 for x in loads if x)}; the reduction: "
          f"{len(reds)} atomic reductions into the block's slots, {len(per_item)} scratch buffers per work-item")
    ptxas = find_ptxas()
    if ptxas is None:
        print("ptxas: not found (CINT_PTXAS, PATH, or pip install nvidia-cuda-nvcc)")
        return 0
    nvdisasm = find_nvdisasm(ptxas)
    with tempfile.TemporaryDirectory() as scratch:
        source = os.path.join(scratch, "heat.ptx")
        with open(source, "w") as f:
            f.write(body)
        for arch in ("sm_75", "sm_90"):
            cubin = os.path.join(scratch, f"heat_{arch}.cubin")
            done = subprocess.run([ptxas, f"-arch={arch}", "-v", "-o", cubin, source], capture_output=True,
                                  text=True, check=True)
            usage = " ".join(line.split("info    : ")[-1] for line in done.stderr.splitlines() if "Used" in line)
            with open(cubin, "rb") as f:
                sections = _elf_sections(f.read())
            text = sum(size for name, size in sections.items() if name.startswith(".text."))
            split = f"; {sass_figures(nvdisasm, cubin)}" if nvdisasm else ""
            print(f"ptxas {arch}: {usage}; machine code {text} bytes = {text // 16} instructions{split}")
    return 0


def host_program(size: int, steps: int) -> str:
    """The heat kernel stepped `steps` times in each direction on a size x size grid."""
    return HEAT + f"""
void main() {{
    I32[{size}, {size}] a;
    I32[{size}, {size}] b;
    a[{size // 2}, {size // 2}] = 65536;
    I64 heat = 0;
    for t in 0..{steps} {{
        diffuse(a, 1, 8, b, heat);
        diffuse(b, 1, 8, a, heat);
    }}
    "total={{heat}}\\n";
}}

main();
"""


def host_cost(size: int, steps: int, block: int) -> int:
    """gpu-cuda's host in C (rt/gpu_host.c) on the null device: launches do nothing and
    every byte that comes back is all ones, so each dispatch costs what the host does
    around a GPU's launch: the placement, the scans of the contributions and marks, the
    exact sum, the staging and publication. Prints the host's time per work-item of each
    dispatch and the process's peak resident memory beside the arrays' bytes."""
    import resource

    from cint_ls.exec.cuda import run

    program = build(host_program(size, steps), "heat_host.ci").program
    assert program is not None
    n = size * size
    arrays = 2 * 4 * n
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    started = time.perf_counter()
    result = run(program, None, None, {"device": "null", "block_size": block, "report": True, "max_launch": n})
    whole = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    rows = result.dispatch_log or []
    per_item = [row["seconds"] / n * 1e9 for row in rows]
    print(f"gpu-cuda's C host on the null device: heat step on a {size} x {size} grid ({n:,} work-items), "
          f"block size {block}, {len(rows)} dispatches, {result.notes[1]}")
    print(f"host time per work-item, per dispatch: median {statistics.median(per_item):.2f} ns, "
          f"min {min(per_item):.2f} ns, max {max(per_item):.2f} ns (first: {per_item[0]:.2f} ns)")
    for row in rows[:3]:
        copies = row.get("copies") or {}
        print(f"  dispatch {row['number']}: {row['seconds'] * 1000:.1f} ms; to the device {copies.get('to_device', 0):,} B, "
              f"from it {copies.get('from_device', 0):,} B, already there {copies.get('already_there', 0):,} B")
    print(f"whole run (compile cached, the entry's loops, {len(rows)} dispatches): {whole:.2f} s")
    print(f"peak resident memory {peak / 2**20:,.0f} MiB (before the run {before / 2**20:,.0f} MiB: Python and "
          f"the library); the run added {(peak - before) / 2**20:,.0f} MiB = {(peak - before) / arrays:.2f}x "
          f"the arrays' {arrays / 2**20:,.0f} MiB")
    return 0


def main() -> int:
    if sys.argv[1:] == ["--ptx-figures"]:
        return ptx_figures()
    if "--device" in sys.argv and "null" in sys.argv:
        parser = argparse.ArgumentParser(description="gpu-cuda's C host on the null device")
        parser.add_argument("--device", choices=("null",))
        parser.add_argument("--size", type=int, default=2048)
        parser.add_argument("--steps", type=int, default=3, help="dispatches in each direction (default 3)")
        parser.add_argument("--block-size", type=int, default=256)
        args = parser.parse_args()
        return host_cost(args.size, args.steps, args.block_size)
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=8192, help="the grid is size x size (default 8192)")
    parser.add_argument("--steps", type=int, default=2,
                        help="whole dispatches: the step run 2 x STEPS times on the C host (default 2)")
    parser.add_argument("--repeat", type=int, default=10, help="repetitions per kernel measurement (default 10)")
    parser.add_argument("--block-size", type=int, default=256)
    parser.add_argument("--device", choices=("cuda", "sim"), default="cuda",
                        help="sim: run the script on the simulated device (small --size only)")
    args = parser.parse_args()

    if args.device == "sim":
        device: Device = SimulatedDevice()
    else:
        try:
            from cint_ls.exec.cuda.oracle.driver import CudaDevice

            device = CudaDevice()
        except DeviceUnavailable as error:
            print(f"heat_gpu: this benchmark needs an NVIDIA GPU with its CUDA driver and cuda-python, and this "
                  f"machine has none ({error}); `--device sim --size 64` runs the script on the simulated device",
                  file=sys.stderr)
            return 2
    n = args.size * args.size
    print(f"heat step on a {args.size} x {args.size} grid ({n:,} work-items), block size {args.block_size}, "
          f"on {device.description}; medians of {args.repeat}")

    def line(label: str, seconds: float, note: str = "") -> None:
        print(f"{label:<44} {seconds * 1000:10.3f} ms   {n / seconds / 1e9:8.2f} G work-items/s{note}")

    try:
        seconds, launch_only, first_step, total, block = gpu_cuda_kernel(device, args.size, args.repeat,
                                                                          args.block_size)
    except DeviceError as error:
        print(f"heat_gpu: the device failed: {error}", file=sys.stderr)
        return 3
    line("gpu-cuda, kernel with its whole reduction", seconds,
         "" if block == args.block_size else f" (blocks of {block}: the entry's limit)")
    line("  of which the launch alone", launch_only)
    print(f"gpu-cuda's total after one step: {total}")
    dispatch = whole_dispatch("sim" if device.simulated else "cuda", args.size, args.steps, args.block_size)
    if isinstance(dispatch, str):
        print(f"gpu-cuda, whole dispatch: skipped ({dispatch})")
    else:
        times, output = dispatch
        later = times[1:] or times
        line(f"gpu-cuda, whole dispatch (C host, {len(times)} dispatches)", statistics.median(later),
             f"; first {times[0] * 1000:.3f} ms; {output}")
    if device.simulated:
        agrees = (first_step, total) == reference_step(args.size)
        print(f"  results: {'identical' if agrees else 'DIFFERENT'} to the reference interpreter's (the grid and "
              f"the total after one step)")
        print("hand-written CUDA: skipped (the simulated device runs only the PTX cint emits)")
        return 0 if agrees else 1
    same = True
    for tuned, label in ((False, "hand-written CUDA (no checks)"), (True, "hand-written CUDA, tuned (2-D, 32-bit)")):
        hand = run_hand_written(device, args.size, args.repeat, args.block_size, tuned)
        if isinstance(hand, str):
            print(f"{label}: skipped ({hand})")
            continue
        hand_seconds, result, hand_total = hand
        line(label, hand_seconds, f"; gpu-cuda's kernel / this: {seconds / hand_seconds:.2f}x")
        agrees = result == first_step and hand_total == total
        same = same and agrees
        print(f"  results: {'identical' if agrees else 'DIFFERENT'} (the grid and the total after one step)")
    device.close()
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
