"""Compiling emitted C into a shared library, cached by content.

The compiler is `$CC` (which may hold arguments, `ccache gcc`), else the first of `cc`,
`gcc`, `clang` on PATH. The run-time (rt/*.c) is compiled once per compiler, flags and
run-time sources into objects under the cache; each program is compiled and linked with
them into `program.so`. The cache lives in `$XDG_CACHE_HOME/cint-ls/c17` (default
`~/.cache/cint-ls/c17`); a program's key is a hash of its C text, the flags, the
compiler's identity (path and `--version`) and the run-time's key.

The cache is trusted only as far as it is checked, since the library is loaded and its
code runs:

- its directories are this user's and private: created with mode 0700, an existing one
  of this user's is set to 0700, and one of another user's (or a symbolic link to one,
  or a base directory others may write without the sticky bit) is refused (CacheError,
  one line);
- each entry directory holds a manifest, `manifest.sha256` (sha256sum's format), written
  after the files it lists; a library or a run-time object is used only when it is a
  regular file of this user's whose sha256 is the one recorded. Anything else (a file
  planted without a manifest, a truncated or corrupt file, no manifest) is rebuilt;
- every file is written under a temporary name and renamed into place, so concurrent
  builds of one program are safe and a reader never sees half a file.

The compiler comes from the environment (`$CC`) or PATH; the language server passes its
`cint.c17.compiler` setting as `$CC` only after checking that it is one program (an
absolute path or a bare name), without arguments (server/settings.py).
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shlex
import shutil
import stat
import subprocess
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from ..executors import ExecutorUnavailable

RT_DIR = Path(__file__).parent / "rt"
RT_SOURCES = ("big.c", "arith.c", "fault.c", "views.c", "text.c", "reduce.c", "alias.c", "dispatch.c", "pool.c",
              "host.c")
RT_HEADERS = ("cint_rt.h", "cint_ops.h")

# SPEC-02P.1 10.3 paragraph 3 [B-7]: the emitted C compiles without a warning under these.
WARNING_FLAGS = ("-std=c17", "-Wall", "-Wextra", "-Wconversion", "-Wsign-conversion", "-Wshadow", "-Wpedantic",
                 "-Werror")
FLAGS = WARNING_FLAGS + ("-O2", "-fPIC", "-pthread")  # POSIX threads: the pool of rt/pool.c

COMPILE_TIME_LIMIT = 300  # seconds for one compiler command

MANIFEST = "manifest.sha256"  # in each entry directory: `<sha256>  <file name>` per line
_MANIFEST_LINE = re.compile(r"([0-9a-f]{64})  ([A-Za-z0-9._-]+)")
_MANIFEST_MAX = 1 << 16  # bytes


class BuildError(ExecutorUnavailable):
    """The C compiler rejected the emitted C or the run-time: a defect of cint-ls."""


class NoCompiler(ExecutorUnavailable):
    """There is no usable C compiler (gpu-cuda then describes a fault without cpu-c17)."""


class CacheError(ExecutorUnavailable):
    """The compile cache cannot be used safely (a directory of another user's, or one
    that others may change). The message is one line that names the directory."""


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
    """The cache's directory (not created; `cache_directory` creates and checks it). A
    relative $XDG_CACHE_HOME is ignored, as the XDG specification asks."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = str(Path.home() / ".cache")
    return Path(base) / "cint-ls" / "c17"


def _refuse(path: Path, why: str) -> CacheError:
    return CacheError(f"the compile cache directory {path} {why}; remove it or set XDG_CACHE_HOME elsewhere")


def _private_directory(path: Path, follow: bool) -> None:
    """Create `path` with mode 0700, or check that the existing one is this user's (set
    it to 0700 when it is more open). `follow`: a symbolic link of this user's to a
    directory of this user's is accepted (the cache's own two levels, which a user may
    have moved); entry directories must be plain directories."""
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as error:
        raise CacheError(f"the compile cache directory {path} cannot be created: "
                         f"{error.strerror or error}") from None
    uid = os.getuid()
    try:
        link = os.lstat(path)
        if stat.S_ISLNK(link.st_mode):
            if not follow:
                raise _refuse(path, "is a symbolic link")
            if link.st_uid != uid:
                raise _refuse(path, f"is a symbolic link of another user's (uid {link.st_uid})")
        info = os.stat(path)
    except OSError as error:
        raise CacheError(f"the compile cache directory {path} cannot be used: {error.strerror or error}") from None
    if not stat.S_ISDIR(info.st_mode):
        raise _refuse(path, "is not a directory")
    if info.st_uid != uid:
        raise _refuse(path, f"belongs to another user (uid {info.st_uid}, this user is uid {uid})")
    if stat.S_IMODE(info.st_mode) != 0o700:
        try:
            os.chmod(path, 0o700)
        except OSError as error:
            raise CacheError(f"the compile cache directory {path} cannot be made private: "
                             f"{error.strerror or error}") from None


def cache_directory() -> Path:
    """`cache_root()`, created private or checked (CacheError)."""
    root = cache_root()
    base = root.parent.parent
    try:
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.stat(base)
    except OSError as error:
        raise CacheError(f"the cache directory {base} cannot be created: {error.strerror or error}") from None
    if info.st_uid not in (os.getuid(), 0):
        raise CacheError(f"the cache directory {base} belongs to another user (uid {info.st_uid}); "
                         "set XDG_CACHE_HOME elsewhere")
    if info.st_mode & stat.S_IWOTH and not info.st_mode & stat.S_ISVTX:
        raise CacheError(f"the cache directory {base} may be changed by any user (mode "
                         f"{stat.S_IMODE(info.st_mode):04o}, no sticky bit); set XDG_CACHE_HOME elsewhere")
    _private_directory(root.parent, follow=True)
    _private_directory(root, follow=True)
    return root


def _entry_directory(path: Path) -> Path:
    _private_directory(path, follow=False)
    return path


def file_digest(path: Path) -> str | None:
    """The sha256 of `path` when it is a regular file of this user's (not followed if it
    is a symbolic link); None otherwise."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with open(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid():
            return None
        h = hashlib.sha256()
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def read_manifest(directory: Path) -> dict[str, str]:
    """The recorded digests of an entry (file name -> sha256); {} when there is no
    manifest, or it is not a regular file of this user's, or it is malformed."""
    try:
        fd = os.open(directory / MANIFEST, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return {}
    with open(fd, "rb") as f:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_size > _MANIFEST_MAX:
            return {}
        text = f.read(_MANIFEST_MAX).decode("ascii", "replace")
    recorded = {}
    for line in text.splitlines():
        match = _MANIFEST_LINE.fullmatch(line)
        if match is None:
            return {}
        recorded[match.group(2)] = match.group(1)
    return recorded


def _write_manifest(directory: Path, digests: dict[str, str]) -> None:
    temporary = _temporary(directory / MANIFEST)
    try:
        temporary.write_text("".join(f"{digest}  {name}\n" for name, digest in sorted(digests.items())),
                             encoding="ascii", newline="\n")
        _publish(temporary, directory / MANIFEST)
    finally:
        temporary.unlink(missing_ok=True)


def _verified(path: Path, recorded: dict[str, str]) -> bool:
    """`path` is the file its entry's manifest records."""
    expected = recorded.get(path.name)
    return expected is not None and file_digest(path) == expected


def _temporary(final: Path) -> Path:
    """A fresh name beside `final` for writing it (renamed into place by _publish)."""
    return final.with_name(f".{final.stem}.{os.getpid()}.{secrets.token_hex(6)}{final.suffix}")


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


def _run(compiler: Compiler, args: list[str], what: str, runtime: bool = False) -> None:
    """Run the compiler. Our run-time compiles cleanly with GCC and Clang [B-7], so a
    compiler that fails on it is not a working C17 compiler (NoCompiler: gpu-cuda then
    describes faults with the interpreter); a failure on the emitted C is our defect."""
    try:
        result = subprocess.run([*compiler.argv, *args], capture_output=True, text=True, timeout=COMPILE_TIME_LIMIT)
    except subprocess.TimeoutExpired:
        raise BuildError(f"the C compiler {compiler.name} took longer than {COMPILE_TIME_LIMIT} s on {what}") from None
    except OSError as error:
        raise NoCompiler(f"the C compiler {compiler.name} cannot run: {error.strerror or error}") from None
    if result.returncode != 0 and runtime:
        raise NoCompiler(f"the C compiler {compiler.name} failed on {what} (exit {result.returncode}): "
                         f"{first_error(result.stderr)}; cpu-c17's run-time compiles with GCC and Clang: "
                         "is it a working C17 compiler? (install gcc or clang, or set CC)")
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


def _compiled_digest(temporary: Path, what: str) -> str:
    digest = file_digest(temporary)
    if digest is None:  # `CC=/bin/true`: not a compiler at all
        raise NoCompiler(f"the C compiler wrote no file for {what}: it is not a working C compiler; "
                         "install gcc or clang, or set CC")
    return digest


def runtime_directory(compiler: Compiler) -> Path:
    """Where the run-time compiled by `compiler` is cached (not created)."""
    return cache_root() / f"rt-{_digest(compiler.identity, ' '.join(FLAGS), runtime_sources_key())}"


def runtime_objects(compiler: Compiler) -> list[Path]:
    """The run-time compiled for `compiler` (cached; an object is used only when the
    entry's manifest records its content)."""
    cache_directory()
    directory = _entry_directory(runtime_directory(compiler))
    objects = [directory / (Path(name).stem + ".o") for name in RT_SOURCES]
    recorded = read_manifest(directory)
    stale = [(name, obj) for name, obj in zip(RT_SOURCES, objects) if not _verified(obj, recorded)]
    if not stale:
        return objects
    digests = {obj.name: recorded[obj.name] for obj in objects if obj.name in recorded}
    for name, obj in stale:
        temporary = _temporary(obj)
        try:
            _run(compiler, [*FLAGS, "-I", str(RT_DIR), "-c", str(RT_DIR / name), "-o", str(temporary)],
                 f"the run-time file rt/{name}", runtime=True)
            digests[obj.name] = _compiled_digest(temporary, f"the run-time file rt/{name}")
            _publish(temporary, obj)
        finally:
            temporary.unlink(missing_ok=True)
    _write_manifest(directory, {obj.name: digests[obj.name] for obj in objects})
    return objects


def library_directory(c_text: str, compiler: Compiler) -> Path:
    """Where the library of an emitted program is cached (not created)."""
    return cache_root() / _digest(c_text, " ".join(FLAGS), compiler.identity, runtime_sources_key())


def build_library(c_text: str, compiler: Compiler | None = None) -> Path:
    """The shared library of an emitted program (cached by content; used only when the
    entry's manifest records its content, else built again)."""
    compiler = compiler or find_compiler()
    objects = runtime_objects(compiler)
    directory = _entry_directory(library_directory(c_text, compiler))
    library = directory / "program.so"
    if _verified(library, read_manifest(directory)):
        return library
    source = directory / "program.c"
    temporaries = [_temporary(source), _temporary(directory / "program.o"), _temporary(library)]
    temporary_source, obj, temporary = temporaries
    try:
        temporary_source.write_text(c_text, encoding="utf-8", newline="\n")
        _publish(temporary_source, source)
        _run(compiler, [*FLAGS, "-I", str(RT_DIR), "-c", str(source), "-o", str(obj)], "the emitted C")
        _run(compiler, ["-shared", "-pthread", "-o", str(temporary), str(obj), *map(str, objects)],
             "linking the program")
        digest = _compiled_digest(temporary, "linking the program")
        _publish(temporary, library)
        _write_manifest(directory, {library.name: digest})
    finally:
        for path in temporaries:
            path.unlink(missing_ok=True)
    return library
