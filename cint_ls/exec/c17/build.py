"""Compiling emitted C into a shared library, cached by content.

The compiler is `$CC` (which may hold arguments, `ccache gcc`), else the first of `cc`,
`gcc`, `clang` on PATH (toolchain.py, which setup.py shares). The run-time (rt/*.c) is
compiled once per compiler, flags and run-time sources into objects under the cache, or
copied there from the objects prebuilt with the package when they are what this
compiler would make (toolchain.usable_prebuilt: same compiler, flags and sources; the
copy's sha256 checked); each program is compiled and linked with them into
`program.so`. The cache lives in `$XDG_CACHE_HOME/cint-ls/c17` (default
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

The cache is pruned after a build (a miss; at most once a minute, PRUNE_INTERVAL):
while it holds more than its limit (`$CINT_C17_CACHE_LIMIT`, a size such as `512M`,
`2G` or `800000k`, or `none`; default 512 MiB), the least recently used entries go
first, never one in use: an entry is in use while a process holds a shared lock on its
`lock` file (from finding or building the library until it is returned, and the
run-time's entry while a program is linked with it), and for PRUNE_GRACE seconds (5
minutes) after its last use (the `lock` file's time, touched at each use), which
covers the moment between building a library and loading it. A loaded library does not
need its file (the pruner only unlinks), so a process that holds a library keeps
running when its entry goes; the next run builds it again.

The compiler comes from the environment (`$CC`) or PATH; the language server passes its
`cint.c17.compiler` setting as `$CC` only after checking that it is one program (an
absolute path or a bare name), without arguments (server/settings.py).
"""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shutil
import stat
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path

try:
    import fcntl
except ImportError:  # not POSIX: no locks (cpu-c17 needs GCC or Clang on a POSIX system anyway)
    fcntl = None  # type: ignore[assignment]

from ..executors import ExecutorUnavailable
from . import toolchain
from .toolchain import (  # noqa: F401 (GPU_RT_DIR, RT_DIR, WARNING_FLAGS: this module's API, as before)
    FLAGS,
    GPU_RT_DIR,
    RT_DIR,
    RT_GPU_SOURCES,
    RT_HEADERS,
    RT_SOURCES,
    WARNING_FLAGS,
    Compiler,
    CompilerMissing,
    PrebuiltObject,
    compile_runtime_args,
    object_name,
    rt_path,
    usable_prebuilt,
)

COMPILE_TIME_LIMIT = 300  # seconds for one compiler command

MANIFEST = "manifest.sha256"  # in each entry directory: `<sha256>  <file name>` per line
_MANIFEST_LINE = re.compile(r"([0-9a-f]{64})  ([A-Za-z0-9._-]+)")
_MANIFEST_MAX = 1 << 16  # bytes

LOCK = "lock"  # in each entry directory: shared-locked while in use; its time is the last use
PRUNE_LOCK = "prune.lock"  # in the cache's directory: one pruner at a time
LIMIT_ENV = "CINT_C17_CACHE_LIMIT"
DEFAULT_LIMIT = 512 << 20  # bytes
PRUNE_GRACE = 300.0  # seconds after its last use during which an entry is kept
PRUNE_INTERVAL = 60.0  # seconds: a build looks at the cache's size at most this often
PRUNED = "pruned"  # in the cache's directory: its time is the last look
_ENTRY_NAME = re.compile(r"(rt-)?[0-9a-f]{32}")
_SIZE = re.compile(r"(\d+)\s*([kmg]?)(?:i?b)?")


class BuildError(ExecutorUnavailable):
    """The C compiler rejected the emitted C or the run-time: a defect of cint-ls."""


class NoCompiler(ExecutorUnavailable):
    """There is no usable C compiler (gpu-cuda then describes a fault without cpu-c17)."""


class CacheError(ExecutorUnavailable):
    """The compile cache cannot be used safely (a directory of another user's, or one
    that others may change). The message is one line that names the directory."""


def find_compiler() -> Compiler:
    """The C compiler to use (toolchain.find_compiler); NoCompiler when there is none."""
    try:
        return toolchain.find_compiler()
    except CompilerMissing as error:
        raise NoCompiler(str(error)) from None


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
    return _digest(*(rt_path(name).read_bytes() for name in RT_HEADERS + RT_SOURCES))


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


# ---- entries in use, and pruning


def _open_lock(directory: Path) -> int:
    """The entry's lock file, opened (created, private, not through a symbolic link)."""
    return os.open(directory / LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)


def _same_file(fd: int, path: Path) -> bool:
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    mine = os.fstat(fd)
    return (info.st_dev, info.st_ino) == (mine.st_dev, mine.st_ino)


@contextmanager
def in_use(directory: Path) -> Iterator[None]:
    """The entry `directory` (created private if missing) in use for the duration: a
    shared lock on its lock file, touched as its last use. A pruner that removed the
    entry meanwhile leaves a lock file that is no longer the entry's: then again."""
    for _ in range(100):
        _entry_directory(directory)
        try:
            fd = _open_lock(directory)
        except FileNotFoundError:  # the entry was just removed: make it again
            continue
        except OSError as error:
            raise CacheError(f"the compile cache entry {directory} cannot be locked: "
                             f"{error.strerror or error}") from None
        try:
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_SH)
            if not _same_file(fd, directory / LOCK):
                continue
            os.utime(fd)
            yield
            return
        finally:
            os.close(fd)
    raise CacheError(f"the compile cache entry {directory} keeps being removed while it is used")


def cache_limit() -> int | None:
    """The cache's limit in bytes from $CINT_C17_CACHE_LIMIT (None: `none`, no limit)."""
    text = os.environ.get(LIMIT_ENV, "").strip().lower()
    if not text:
        return DEFAULT_LIMIT
    if text in ("none", "unlimited"):
        return None
    match = _SIZE.fullmatch(text)
    if match is None:
        raise CacheError(f"{LIMIT_ENV}={os.environ[LIMIT_ENV].strip()} is not a size: write bytes with an "
                         "optional k, M or G (512M, 2G) or none")
    return int(match.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[match.group(2)]


@dataclass(frozen=True)
class CacheEntry:
    path: Path
    size: int  # bytes of its files
    last_use: float  # the lock file's time (else the newest of its files and itself)


def cache_entries() -> list[CacheEntry]:
    """The entries of the cache (program libraries and run-times), least recently used
    first."""
    entries = []
    try:
        listing = list(os.scandir(cache_root()))
    except OSError:
        return []
    for item in listing:
        if not _ENTRY_NAME.fullmatch(item.name) or not item.is_dir(follow_symlinks=False):
            continue
        size, newest, lock = 0, 0.0, None
        try:
            newest = item.stat(follow_symlinks=False).st_mtime
            for file in os.scandir(item.path):
                info = file.stat(follow_symlinks=False)
                size += info.st_size
                newest = max(newest, info.st_mtime)
                if file.name == LOCK:
                    lock = info.st_mtime
        except OSError:  # removed meanwhile
            continue
        entries.append(CacheEntry(Path(item.path), size, lock if lock is not None else newest))
    return sorted(entries, key=lambda e: (e.last_use, e.path.name))


def _remove_entry(entry: CacheEntry, now: float) -> bool:
    """Remove an entry that is not in use (no lock held, not used within PRUNE_GRACE)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    try:
        try:
            fd, last_use = os.open(entry.path / LOCK, flags | os.O_EXCL, 0o600), entry.last_use  # none yet
        except FileExistsError:
            fd, last_use = os.open(entry.path / LOCK, flags, 0o600), None
    except OSError:
        return False
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # in use
                return False
        if last_use is None:
            last_use = os.fstat(fd).st_mtime  # as touched by its last use, up to now
        if not _same_file(fd, entry.path / LOCK) or now - last_use < PRUNE_GRACE:
            return False
        shutil.rmtree(entry.path, ignore_errors=True)
        return not entry.path.exists()
    finally:
        os.close(fd)


def prune_cache(limit: int | None = -1) -> list[Path]:
    """While the cache holds more than `limit` bytes (default: `cache_limit()`; None: no
    limit), remove its least recently used entries that are not in use. Returns the
    entries removed. One pruner at a time; another process's pruning is not waited for."""
    if limit == -1:
        limit = cache_limit()
    if limit is None:
        return []
    root = cache_directory()
    try:
        fd = os.open(root / PRUNE_LOCK, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:
        return []
    removed = []
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # another process prunes
                return []
        entries = cache_entries()
        total = sum(e.size for e in entries)
        now = time.time()
        for entry in entries:
            if total <= limit or now - entry.last_use < PRUNE_GRACE:
                break  # least recently used first: every later one is as recent
            if _remove_entry(entry, now):
                total -= entry.size
                removed.append(entry.path)
    finally:
        os.close(fd)
    return removed


def _prune_now_and_then() -> None:
    """prune_cache, at most every PRUNE_INTERVAL seconds (a look at every entry costs
    some 60 ms a thousand entries; what is built in between is a few MB at most)."""
    stamp = cache_root() / PRUNED
    try:
        if time.time() - os.stat(stamp, follow_symlinks=False).st_mtime < PRUNE_INTERVAL:
            return
    except FileNotFoundError:
        pass
    except OSError:
        return
    try:
        fd = os.open(stamp, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError:
        return
    try:
        os.utime(fd)
    finally:
        os.close(fd)
    prune_cache()


def runtime_directory(compiler: Compiler) -> Path:
    """Where the run-time compiled by `compiler` is cached (not created)."""
    return cache_root() / f"rt-{_digest(compiler.identity, ' '.join(FLAGS), runtime_sources_key())}"


def runtime_sources(gpu: bool = False) -> tuple[str, ...]:
    """The run-time files a library links: gpu-cuda's host only for gpu-cuda."""
    return RT_SOURCES if gpu else tuple(name for name in RT_SOURCES if name not in RT_GPU_SOURCES)


def runtime_objects(compiler: Compiler, gpu: bool = False) -> list[Path]:
    """The run-time compiled for `compiler` (cached; an object is used only when the
    entry's manifest records its content)."""
    cache_directory()
    directory = runtime_directory(compiler)
    with in_use(directory):
        return _runtime_objects(compiler, directory, gpu)


def _runtime_objects(compiler: Compiler, directory: Path, gpu: bool = False) -> list[Path]:
    names = runtime_sources(gpu)
    objects = [directory / object_name(name) for name in names]
    recorded = read_manifest(directory)
    stale = [(name, obj) for name, obj in zip(names, objects) if not _verified(obj, recorded)]
    if not stale:
        return objects
    # The manifest keeps what it recorded of the files not asked for (gpu-cuda's).
    digests = {object_name(name): recorded[object_name(name)] for name in RT_SOURCES
               if object_name(name) in recorded}
    # The objects prebuilt with the package, where this compiler would make the same
    # ones (issue 29: a first Run compiles only the program); the rest are compiled.
    prebuilt = usable_prebuilt(compiler)
    missing = []
    for name, obj in stale:
        copied = _copy_prebuilt(prebuilt[obj.name], obj) if obj.name in prebuilt else None
        if copied is None:
            missing.append((name, obj))
        else:
            digests[obj.name] = copied
    if missing:
        # One compiler per core at a time: a cold Run waits for the run-time (issue 14).
        with ThreadPoolExecutor(max_workers=max(1, min(len(missing), _cores()))) as pool:
            jobs = [(obj, pool.submit(_compile_runtime_file, compiler, name, obj)) for name, obj in missing]
            for obj, job in jobs:
                digests[obj.name] = job.result()
    _write_manifest(directory, digests)
    return objects


def _copy_prebuilt(prebuilt: PrebuiltObject, obj: Path) -> str | None:
    """Copy a prebuilt object into the cache entry as `obj` (under a temporary name,
    then renamed); its sha256, or None when the prebuilt file is not the one its
    manifest records (corrupt, truncated, replaced): then it is compiled instead. The
    package's files are trusted as its Python code is (whoever installed it owns them),
    so only their content is checked, not their owner."""
    try:
        data = prebuilt.path.read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != prebuilt.sha256:
        return None
    temporary = _temporary(obj)
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0),
                     0o600)
        with open(fd, "wb") as f:
            f.write(data)
        digest = file_digest(temporary)
        if digest != prebuilt.sha256:
            return None
        _publish(temporary, obj)
        return digest
    except OSError:
        return None
    finally:
        temporary.unlink(missing_ok=True)


def _compile_runtime_file(compiler: Compiler, name: str, obj: Path) -> str:
    """Compile rt/`name` into `obj` (under a temporary name, then renamed); its sha256."""
    temporary = _temporary(obj)
    try:
        _run(compiler, compile_runtime_args(name, temporary), f"the run-time file rt/{name}", runtime=True)
        digest = _compiled_digest(temporary, f"the run-time file rt/{name}")
        _publish(temporary, obj)
        return digest
    finally:
        temporary.unlink(missing_ok=True)


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def library_directory(c_text: str, compiler: Compiler, gpu: bool = False) -> Path:
    """Where the library of an emitted program is cached (not created)."""
    return cache_root() / _digest(c_text, " ".join(FLAGS), compiler.identity, runtime_sources_key(),
                                  " ".join(runtime_sources(gpu)))


def build_library(c_text: str, compiler: Compiler | None = None, gpu: bool = False) -> Path:
    """The shared library of an emitted program (cached by content; used only when the
    entry's manifest records its content, else built again, and then the cache pruned).
    The caller loads it at once (the entry is kept PRUNE_GRACE seconds after its use)."""
    compiler = compiler or find_compiler()
    cache_directory()
    directory = library_directory(c_text, compiler, gpu)
    library = directory / "program.so"
    with in_use(directory):
        if _verified(library, read_manifest(directory)):
            return library
        runtime = runtime_directory(compiler)
        with in_use(runtime):
            _build(c_text, compiler, directory, library, lambda: _runtime_objects(compiler, runtime, gpu))
    _prune_now_and_then()
    return library


def _build(c_text: str, compiler: Compiler, directory: Path, library: Path,
           runtime: Callable[[], list[Path]]) -> None:
    source = directory / "program.c"
    temporaries = [_temporary(source), _temporary(directory / "program.o"), _temporary(library)]
    temporary_source, obj, temporary = temporaries
    try:
        temporary_source.write_text(c_text, encoding="utf-8", newline="\n")
        _publish(temporary_source, source)
        # The program compiles while the run-time does, where it is not cached yet (a
        # cold Run, issue 14): a core would otherwise wait for the other's last file.
        with ThreadPoolExecutor(max_workers=1) as pool:
            program = pool.submit(_run, compiler, [*FLAGS, "-I", str(RT_DIR), "-c", str(source), "-o", str(obj)],
                                  "the emitted C")
            try:
                objects = runtime()
            except BaseException:
                program.exception()  # waited for; the run-time's failure is the one said
                raise
            program.result()
        _run(compiler, ["-shared", "-pthread", "-o", str(temporary), str(obj), *map(str, objects), "-ldl"],
             "linking the program")  # -ldl: gpu_cuda.c's dlopen (in libc from glibc 2.34)
        digest = _compiled_digest(temporary, "linking the program")
        _publish(temporary, library)
        _write_manifest(directory, {library.name: digest})
    finally:
        for path in temporaries:
            path.unlink(missing_ok=True)
