"""cpu-c17's C toolchain: the compiler it chooses, its flags, the run-time's files (rt/,
and gpu-cuda's host in C in ../cuda/rt/), and the run-time prebuilt when the package is
built.

The standard library only, and no import from the package: setup.py loads this file by
its path to prebuild the run-time (the package's dependencies are not installed then),
so that the package's build and cpu-c17 choose the compiler and the flags by one rule.

The prebuilt run-time (`prebuilt/`, made by setup.py's `build_c17_runtime` into the
wheel, or into the source tree for an editable install) is one object per rt/*.c and
`manifest.json`: the compiler (argv and the first line of `--version`), the flags, the
sha256 of every header, and for each object the sha256 of its source and of itself. An
object is usable only by the same compiler, the same flags, the same headers and the
same source (`usable_prebuilt`); its own sha256 is checked when it is copied into the
compile cache (build.py), so a corrupt one is compiled instead.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

RT_DIR = Path(__file__).parent / "rt"
# gpu-cuda's host in C (SPEC-02P.1 10.5), beside gpu-cuda: built on this run-time, and
# linked into a library built for gpu-cuda only, so that a cold cpu-c17 Run does not
# compile it (issue 14).
GPU_RT_DIR = Path(__file__).parent.parent / "cuda" / "rt"
RT_GPU_SOURCES = ("gpu_host.c", "gpu_cuda.c")
RT_GPU_HEADERS = ("gpu_host.h",)
RT_SOURCES = ("big.c", "arith.c", "fault.c", "views.c", "text.c", "reduce.c", "alias.c", "dispatch.c", "pool.c",
              "context.c", "stack.c") + RT_GPU_SOURCES
RT_HEADERS = ("cint_rt.h", "cint_ops.h", "cint_faults.h") + RT_GPU_HEADERS
RT_INCLUDES = ("-I", str(RT_DIR), "-I", str(GPU_RT_DIR))


def rt_path(name: str) -> Path:
    """Where the run-time's file `name` (a member of RT_SOURCES or RT_HEADERS) lives."""
    return (GPU_RT_DIR if name in RT_GPU_SOURCES + RT_GPU_HEADERS else RT_DIR) / name

# SPEC-02P.1 10.3 paragraph 3 [B-7]: the emitted C compiles without a warning under these.
WARNING_FLAGS = ("-std=c17", "-Wall", "-Wextra", "-Wconversion", "-Wsign-conversion", "-Wshadow", "-Wpedantic",
                 "-Werror")
FLAGS = WARNING_FLAGS + ("-O2", "-fPIC", "-pthread")  # POSIX threads: the pool of rt/pool.c

PREBUILT_DIR = Path(__file__).parent / "prebuilt"
PREBUILT_MANIFEST = "manifest.json"
PREBUILT_FORMAT = 1
PREBUILT_ENV = "CINT_C17_PREBUILT"  # `off`: ignore the prebuilt run-time (compile it, as before)


class CompilerMissing(Exception):
    """No usable C compiler; the message is one line (build.py raises it as NoCompiler)."""


@dataclass(frozen=True)
class Compiler:
    argv: tuple[str, ...]
    version: str  # the first line of `--version`

    @property
    def name(self) -> str:
        return Path(self.argv[-1]).name

    @property
    def identity(self) -> str:
        return " ".join(self.argv) + "\n" + self.version


def find_compiler() -> Compiler:
    """`$CC` (which may hold arguments, `ccache gcc`), else the first of `cc`, `gcc`,
    `clang` on PATH; CompilerMissing when there is none."""
    env = os.environ.get("CC", "").strip()
    if env:
        argv = shlex.split(env)
        path = shutil.which(argv[0])
        if path is None:
            raise CompilerMissing(f"no C compiler found: CC={env} does not name a program; install gcc or clang, "
                                  "or set CC")
        return identify((path, *argv[1:]))
    for name in ("cc", "gcc", "clang"):
        path = shutil.which(name)
        if path is not None:
            return identify((path,))
    raise CompilerMissing("no C compiler found: install gcc or clang, or set CC")


@cache
def identify(argv: tuple[str, ...]) -> Compiler:
    try:
        result = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as error:
        raise CompilerMissing(f"the C compiler {argv[0]} cannot run: {error.strerror or error}") from None
    lines = (result.stdout or result.stderr).strip().splitlines()
    return Compiler(argv, lines[0] if lines else "")


def object_name(source: str) -> str:
    return Path(source).stem + ".o"


def compile_runtime_args(source: str, obj: Path) -> list[str]:
    """The compiler's arguments for rt/`source` (after its argv): the same at package
    build and at run time, so that the objects are the same."""
    return [*FLAGS, *RT_INCLUDES, "-c", str(rt_path(source)), "-o", str(obj)]


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


@cache
def source_digests() -> dict[str, str]:
    """The sha256 of every header and source of the run-time, as they are now."""
    return {name: sha256_of(rt_path(name)) for name in RT_HEADERS + RT_SOURCES}


def prebuild(directory: Path, compiler: Compiler, jobs: int = 1) -> list[Path]:
    """Compile every rt/*.c into `directory` and write its manifest (last, so that a
    failed build leaves no manifest and so nothing usable). Raises CalledProcessError
    when the compiler fails."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / PREBUILT_MANIFEST).unlink(missing_ok=True)
    digests = source_digests()

    def one(source: str) -> Path:
        obj = directory / object_name(source)
        subprocess.run([*compiler.argv, *compile_runtime_args(source, obj)], check=True, capture_output=True,
                       text=True)
        return obj

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        objects = list(pool.map(one, RT_SOURCES))
    manifest = {
        "format": PREBUILT_FORMAT,
        "compiler": {"argv": list(compiler.argv), "version": compiler.version},
        "flags": list(FLAGS),
        "headers": {name: digests[name] for name in RT_HEADERS},
        "objects": {obj.name: {"source": source, "source_sha256": digests[source], "sha256": sha256_of(obj)}
                    for source, obj in zip(RT_SOURCES, objects)},
    }
    (directory / PREBUILT_MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n",
                                               encoding="utf-8", newline="\n")
    return objects


@dataclass(frozen=True)
class PrebuiltObject:
    path: Path
    sha256: str  # what the manifest records: checked when the object is copied


def usable_prebuilt(compiler: Compiler, directory: Path | None = None) -> dict[str, PrebuiltObject]:
    """The prebuilt objects (by object name) that `compiler` would make from the
    run-time as it is now: same compiler (argv and version), same flags, same headers,
    same source. {} when there is no prebuilt run-time, its manifest is unreadable, or
    $CINT_C17_PREBUILT is `off`."""
    if os.environ.get(PREBUILT_ENV, "").strip().lower() in ("off", "0", "no", "false"):
        return {}
    directory = directory or PREBUILT_DIR
    try:
        manifest = json.loads((directory / PREBUILT_MANIFEST).read_text(encoding="utf-8"))
        if (manifest["format"] != PREBUILT_FORMAT
                or manifest["compiler"] != {"argv": list(compiler.argv), "version": compiler.version}
                or manifest["flags"] != list(FLAGS)):
            return {}
        digests = source_digests()
        if any(manifest["headers"].get(name) != digests[name] for name in RT_HEADERS):
            return {}
        usable = {}
        for source in RT_SOURCES:
            entry = manifest["objects"].get(object_name(source))
            if entry and entry["source"] == source and entry["source_sha256"] == digests[source]:
                usable[object_name(source)] = PrebuiltObject(directory / object_name(source), str(entry["sha256"]))
        return usable
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}
