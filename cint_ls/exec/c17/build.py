"""Compiling emitted C into a shared library, cached by content.

The compiler is `$CC` (which may hold arguments, `ccache gcc`), else the first of `cc`,
`gcc`, `clang` on PATH. The run-time (rt/*.c) is compiled once per compiler, flags and
run-time sources into objects under the cache; each program is compiled and linked with
them into `program.so`. The cache lives in `$XDG_CACHE_HOME/cint-ls/c17` (default
`~/.cache/cint-ls/c17`); a program's key is a hash of its C text, the flags, the
compiler's identity (path and `--version`) and the run-time's key. Entries are written
to a temporary name and renamed, so concurrent builds of one program are safe.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..executors import ExecutorUnavailable

RT_DIR = Path(__file__).parent / "rt"
RT_SOURCES = ("big.c", "arith.c", "fault.c", "views.c", "text.c", "reduce.c", "alias.c", "dispatch.c", "host.c")
RT_HEADERS = ("cint_rt.h", "cint_ops.h")

# SPEC-02P.1 10.3 paragraph 3 [B-7]: the emitted C compiles without a warning under these.
WARNING_FLAGS = ("-std=c17", "-Wall", "-Wextra", "-Wconversion", "-Wsign-conversion", "-Wshadow", "-Wpedantic",
                 "-Werror")
FLAGS = WARNING_FLAGS + ("-O2", "-fPIC")

COMPILE_TIME_LIMIT = 300  # seconds for one compiler command


class BuildError(ExecutorUnavailable):
    """The C compiler rejected the emitted C or the run-time: a defect of cint-ls."""


class NoCompiler(ExecutorUnavailable):
    """There is no usable C compiler (gpu-cuda then describes a fault without cpu-c17)."""


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
    """The C compiler to use; ExecutorUnavailable when there is none."""
    env = os.environ.get("CC", "").strip()
    if env:
        argv = shlex.split(env)
        path = shutil.which(argv[0])
        if path is None:
            raise NoCompiler(f"no C compiler found: CC={env} does not name a program; install gcc or clang, "
                             "or set CC")
        return _identify((path, *argv[1:]))
    for name in ("cc", "gcc", "clang"):
        path = shutil.which(name)
        if path is not None:
            return _identify((path,))
    raise NoCompiler("no C compiler found: install gcc or clang, or set CC")


@cache
def _identify(argv: tuple[str, ...]) -> Compiler:
    try:
        result = subprocess.run([*argv, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as error:
        raise NoCompiler(f"the C compiler {argv[0]} cannot run: {error.strerror or error}") from None
    lines = (result.stdout or result.stderr).strip().splitlines()
    return Compiler(argv, lines[0] if lines else "")


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cint-ls" / "c17"


def _digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.hexdigest()[:32]


@cache
def runtime_sources_key() -> str:
    return _digest(*((RT_DIR / name).read_bytes() for name in RT_HEADERS + RT_SOURCES))


def _run(compiler: Compiler, args: list[str], what: str) -> None:
    try:
        result = subprocess.run([*compiler.argv, *args], capture_output=True, text=True, timeout=COMPILE_TIME_LIMIT)
    except subprocess.TimeoutExpired:
        raise BuildError(f"the C compiler {compiler.name} took longer than {COMPILE_TIME_LIMIT} s on {what}") from None
    except OSError as error:
        raise NoCompiler(f"the C compiler {compiler.name} cannot run: {error.strerror or error}") from None
    if result.returncode != 0:
        raise BuildError(f"the C compiler {compiler.name} failed on {what} (a defect of cint-ls): "
                         f"{first_error(result.stderr)}")


def first_error(stderr: str) -> str:
    """The first line of a compiler's messages that says `error`, else the first line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if "error" in line:
            return line
    return lines[0] if lines else "no message"


def _publish(temporary: Path, final: Path) -> None:
    os.replace(temporary, final)


def runtime_objects(compiler: Compiler) -> list[Path]:
    """The run-time compiled for `compiler` (cached)."""
    key = _digest(compiler.identity, " ".join(FLAGS), runtime_sources_key())
    directory = cache_root() / f"rt-{key}"
    objects = [directory / (Path(name).stem + ".o") for name in RT_SOURCES]
    if all(o.exists() for o in objects):
        return objects
    directory.mkdir(parents=True, exist_ok=True)
    for name, obj in zip(RT_SOURCES, objects):
        if obj.exists():
            continue
        temporary = obj.with_name(f".{obj.name}.{os.getpid()}.tmp")
        _run(compiler, [*FLAGS, "-I", str(RT_DIR), "-c", str(RT_DIR / name), "-o", str(temporary)],
             f"the run-time file rt/{name}")
        _publish(temporary, obj)
    return objects


def build_library(c_text: str, compiler: Compiler | None = None) -> Path:
    """The shared library of an emitted program (cached by content)."""
    compiler = compiler or find_compiler()
    objects = runtime_objects(compiler)
    key = _digest(c_text, " ".join(FLAGS), compiler.identity, runtime_sources_key())
    directory = cache_root() / key
    library = directory / "program.so"
    if library.exists():
        return library
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / "program.c"
    temporary_source = directory / f".program.{os.getpid()}.c"
    temporary_source.write_text(c_text, encoding="utf-8", newline="\n")
    _publish(temporary_source, source)
    obj = directory / f".program.{os.getpid()}.o"
    _run(compiler, [*FLAGS, "-I", str(RT_DIR), "-c", str(source), "-o", str(obj)], "the emitted C")
    temporary = directory / f".program.{os.getpid()}.so"
    _run(compiler, ["-shared", "-o", str(temporary), str(obj), *map(str, objects)], "linking the program")
    obj.unlink(missing_ok=True)
    _publish(temporary, library)
    return library
