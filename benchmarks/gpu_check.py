"""An offline check of gpu-cuda on a machine with an NVIDIA GPU (issue 16), in two halves.

    python benchmarks/gpu_check.py prepare DIR     # here, with network
    python3 DIR/gpu_check.py run DIR OUT           # there, without network
    python3 DIR/gpu_check.py run DIR OUT --simulated   # anywhere: the simulated device

`prepare DIR` puts into DIR (under 40 MB):

- `wheels/`: the wheels that CPython 3.12 on manylinux x86-64 needs to install cint-ls
  (tree-sitter, cffi, pygls, lsprotocol and their dependencies) and pytest, fetched with
  `pip download --python-version 3.12 --platform ... --only-binary=:all:`, and the wheel
  of cint-ls itself (`pip wheel --no-deps .`). Its one extension uses only the limited C
  API of 3.11, so the wheel is `cp311-abi3` and installs on 3.12 without a compiler;
- `cint-ls-tests.tar.gz`: tests/, benchmarks/, fuzz/ and pyproject.toml of this checkout
  (the tests are not in the wheel);
- this script, and `MANIFEST.txt` (what is there, the commit).

`run DIR OUT` (no network; at most about 5 minutes: each step has a time limit, 90 + 60 +
130 + 30 s, besides the install; with `--simulated` the conformance step has 240 s): makes a scratch virtual
environment with the system's site packages visible (cuda-python / cuda-bindings and
NVRTC come from the machine, as PyTorch's CUDA does), installs cint-ls and pytest from
`DIR/wheels` only (`pip --no-index`), unpacks the tests, then runs, each with a time
limit, and writes `OUT/summary.txt` and `OUT/summary.json` with a log per step:

1. `pytest tests/gpu -rs`: the conformance suite, Table 3's operations and launch
   splitting against the real driver (skipped as a whole without a GPU);
2. the conformance suite through `cint run --executor gpu-cuda --device cuda` (with
   `--simulated`: `--device sim`), each admitted case's output against its `.out`;
3. `benchmarks/heat_gpu.py --size 8192` (with `--simulated`: `--device sim --size 48`),
   gpu-cuda's kernel with its whole reduction and its whole dispatch on the C host, beside
   two hand-written CUDA kernels (the plain one and a tuned one: 32-bit indices, 2-D grid);
4. `benchmarks/heat_gpu.py --ptx-figures` when ptxas is on the machine.

The exit status is 0 when every step that ran passed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIMIT_BYTES = 40 * 1024 * 1024
PLATFORMS = ["manylinux2014_x86_64", "manylinux_2_17_x86_64", "manylinux_2_28_x86_64"]
REQUIREMENTS = ["tree-sitter>=0.25,<0.27", "pygls>=2.0,<3", "lsprotocol>=2025.0.0", "cffi>=1.16", "pytest>=8"]


def sh(command: list[str], **kwargs) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, check=True, **kwargs)


# ------------------------------------------------------------------ prepare


def prepare(target: Path, python_version: str) -> int:
    wheels = target / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    platforms = [arg for p in PLATFORMS for arg in ("--platform", p)]
    sh([sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(wheels), "--only-binary=:all:",
        "--python-version", python_version, "--implementation", "cp", *platforms, *REQUIREMENTS])
    sh([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(wheels), str(ROOT)])
    ours = sorted(wheels.glob("cint_ls-*.whl"))
    if not ours or not any("abi3" in w.name or f"cp{python_version.replace('.', '')}" in w.name for w in ours):
        print(f"gpu_check: the cint-ls wheel {[w.name for w in ours]} does not install on CPython "
              f"{python_version}", file=sys.stderr)
        return 1
    with tarfile.open(target / "cint-ls-tests.tar.gz", "w:gz") as tar:
        for name in ("tests", "benchmarks", "fuzz", "pyproject.toml"):
            tar.add(ROOT / name, arcname=name,
                    filter=lambda info: None if "__pycache__" in info.name or info.name.endswith(".pyc") else info)
    shutil.copyfile(Path(__file__), target / "gpu_check.py")
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--", "cint_ls", "tests", "benchmarks", "fuzz"],
                           capture_output=True, text=True).stdout.strip()
    files = sorted(p for p in target.rglob("*") if p.is_file() and p.name != "MANIFEST.txt")
    total = sum(p.stat().st_size for p in files)
    lines = [f"cint-ls gpu check, prepared {time.strftime('%Y-%m-%d %H:%M:%S')} for CPython {python_version} "
             f"on {', '.join(PLATFORMS)}",
             f"commit {commit.strip()}" + (" (with uncommitted changes)" if dirty else ""),
             f"{total} bytes in {len(files)} files"]
    lines += [f"{p.stat().st_size:>10}  {p.relative_to(target)}" for p in files]
    (target / "MANIFEST.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines[:3]))
    if total > LIMIT_BYTES:
        print(f"gpu_check: {total} bytes is over the limit of {LIMIT_BYTES}", file=sys.stderr)
        return 1
    return 0


# ------------------------------------------------------------------ run


def step(out: Path, name: str, command: list[str], cwd: Path, env: dict, limit: float) -> dict:
    """Run one step with a time limit, its output to OUT/<name>.log."""
    log = out / f"{name}.log"
    started = time.monotonic()
    with open(log, "w") as f:
        f.write("$ " + " ".join(command) + "\n")
        f.flush()
        try:
            done = subprocess.run(command, cwd=cwd, env=env, stdout=f, stderr=subprocess.STDOUT, timeout=limit)
            status = done.returncode
        except subprocess.TimeoutExpired:
            status = "timeout"
    seconds = time.monotonic() - started
    tail = log.read_text().splitlines()[-15:]
    return {"step": name, "status": status, "seconds": round(seconds, 1), "log": log.name, "tail": tail}


CONFORMANCE = """
import sys
from pathlib import Path
sys.path.insert(0, "tests")
from conftest import conformance_case, conformance_programs, matches_expected
from cint_ls.analysis.capabilities import gpu_refusals
from cint_ls.ir.build import build
from cint_ls.cli.main import main
import contextlib, io, os

device = sys.argv[1]
passed = failed = refused = 0
for path in conformance_programs():
    built = build(path.read_text(), path.name)
    if built.program is not None and gpu_refusals(built.checked):
        refused += 1
        continue
    args, expected = conformance_case(path)
    out, err = io.StringIO(), io.StringIO()
    cwd = os.getcwd()
    os.chdir(path.parent)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["run", path.name, "--executor", "gpu-cuda", "--device", device, *args])
    finally:
        os.chdir(cwd)
    actual = out.getvalue() + err.getvalue()
    if matches_expected(expected, actual):
        passed += 1
    else:
        failed += 1
        print(f"FAIL {path.relative_to(Path('tests/conformance'))} (exit {code})")
        print("--- expected"); print(expected, end=""); print("--- actual"); print(actual, end="")
print(f"conformance on gpu-cuda --device {device}: {passed} passed, {failed} failed, {refused} refused by gpu-cuda")
sys.exit(1 if failed or not passed else 0)
"""


def run(source: Path, out: Path, simulated: bool, python: str, keep: bool) -> int:
    started = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="cint-gpu-check-"))
    steps: list[dict] = []
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONDONTWRITEBYTECODE="1")
    env.pop("PYTHONPATH", None)
    try:
        venv = scratch / "venv"
        sh([python, "-m", "venv", "--system-site-packages", str(venv)], env=env)
        vpython = str(venv / "bin" / "python")
        sh([vpython, "-m", "pip", "install", "--quiet", "--no-index", "--find-links", str(source / "wheels"),
            "cint-ls", "pytest"], env=env)
        with tarfile.open(source / "cint-ls-tests.tar.gz") as tar:
            tar.extractall(scratch / "src", filter="data")
        work = scratch / "src"
        env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["XDG_CACHE_HOME"] = str(scratch / "cache")
        device = "sim" if simulated else "cuda"
        steps.append(step(out, "tests_gpu", [vpython, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                                             "tests/gpu"], work, env, 90))
        if not simulated and not any(" passed" in line for line in steps[-1]["tail"]):
            steps[-1]["status"] = "no test ran (no GPU reached?)"
        (work / "gpu_conformance.py").write_text(CONFORMANCE)
        # The simulated device runs the PTX in Python, a GPU does not: more time for it.
        steps.append(step(out, "conformance", [vpython, "gpu_conformance.py", device], work, env,
                          240 if simulated else 60))
        heat = ["--device", "sim", "--size", "48", "--repeat", "2"] if simulated else ["--size", "8192"]
        steps.append(step(out, "heat_gpu", [vpython, "benchmarks/heat_gpu.py", *heat], work, env,
                          45 if simulated else 130))
        ptxas = shutil.which("ptxas", path=env["PATH"])
        if ptxas or os.environ.get("CINT_PTXAS"):
            steps.append(step(out, "ptx_figures", [vpython, "benchmarks/heat_gpu.py", "--ptx-figures"],
                              work, env, 30))
        installed = subprocess.run([vpython, "-m", "pip", "list", "--format=freeze"], capture_output=True,
                                   text=True, env=env).stdout
    finally:
        if not keep:
            shutil.rmtree(scratch, ignore_errors=True)
    ok = all(s["status"] == 0 for s in steps)
    summary = {
        "ok": ok,
        "simulated": simulated,
        "seconds": round(time.monotonic() - started, 1),
        "machine": {"python": subprocess.run([python, "--version"], capture_output=True, text=True).stdout.strip(),
                    "platform": platform.platform(), "nvidia_smi": _nvidia_smi()},
        "manifest": (source / "MANIFEST.txt").read_text().splitlines()[:2] if (source / "MANIFEST.txt").exists()
        else [],
        "installed": installed.splitlines(),
        "steps": steps,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    lines = [f"cint-ls gpu check: {'PASSED' if ok else 'FAILED'} in {summary['seconds']} s"
             + (" (the SIMULATED device, not a GPU)" if simulated else ""),
             *summary["manifest"], f"machine: {summary['machine']}", ""]
    for s in steps:
        lines.append(f"== {s['step']}: {'ok' if s['status'] == 0 else s['status']} ({s['seconds']} s), "
                     f"log {s['log']}")
        lines += ["   " + line for line in s["tail"]]
    (out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if ok else 1


def _nvidia_smi() -> str:
    try:
        return subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "nvidia-smi: not available"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="download the wheels and pack the tests into DIR (network)")
    p.add_argument("dir", type=Path)
    p.add_argument("--python-version", default="3.12")
    r = sub.add_parser("run", help="install from DIR, run the checks, write OUT (no network)")
    r.add_argument("dir", type=Path)
    r.add_argument("out", type=Path)
    r.add_argument("--simulated", action="store_true", help="the simulated device stands in for the GPU")
    r.add_argument("--python", default=shutil.which("python3.12") or sys.executable,
                   help="the Python of the scratch environment (default: python3.12 on PATH, else this one)")
    r.add_argument("--keep", action="store_true", help="keep the scratch directory")
    args = parser.parse_args()
    if args.command == "prepare":
        return prepare(args.dir.resolve(), args.python_version)
    return run(args.dir.resolve(), args.out.resolve(), args.simulated, args.python, args.keep)


if __name__ == "__main__":
    sys.exit(main())
