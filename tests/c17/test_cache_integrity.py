"""Issue 13 item 2: the compile cache loads only what it built.

A library planted as `<key>/program.so` (keys are predictable) is never loaded and a
planted run-time object `rt-<key>/*.o` is never linked: an entry is used only when its
manifest records its sha256 (and it is a regular file of this user's). A truncated or
garbage library, or a truncated object, is rebuilt by the next run. The cache's
directories are private (0700); one of another user's, or a base that anyone may change,
is refused with one line.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from cint_ls.exec.c17.build import (
    MANIFEST,
    CacheError,
    build_library,
    cache_directory,
    cache_root,
    file_digest,
    find_compiler,
    library_directory,
    read_manifest,
    runtime_directory,
    runtime_objects,
)
from cint_ls.exec.c17.library import emit
from cint_ls.exec.executors import ExecutorUnavailable
from cint_ls.ir.build import build
from cint_ls.running.isolated import IsolatedRunError, Request, run_isolated

pytestmark = [pytest.mark.needs_cc, pytest.mark.slow]  # each test compiles the run-time afresh

PROGRAM = 'I64 sq(I64 x) { return x * x; }\n"{sq(7)}\\n";\n'
OTHER = 'I64 cube(I64 x) { return x * x * x; }\n"{cube(3)}\\n";\n'

PLANTED_C = r"""
#include <stdio.h>
__attribute__((constructor)) static void planted(void) {
    FILE *f = fopen(MARKER, "w");
    if (f) { fputs("the planted code ran\n", f); fclose(f); }
}
int cint_planted_symbol(void) { return 1; }
"""


def _compiler():
    try:
        return find_compiler()
    except ExecutorUnavailable:
        pytest.skip("no C compiler")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache for the test (the child of a run inherits $XDG_CACHE_HOME)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "cint-ls" / "c17"


def _plant(tmp_path: Path, marker: Path, kind: str) -> Path:
    """A shared library (`so`) or an object (`o`) whose constructor writes `marker`."""
    source = tmp_path / "planted.c"
    source.write_text(PLANTED_C)
    out = tmp_path / f"planted.{kind}"
    mode = ["-shared"] if kind == "so" else ["-c"]
    subprocess.run([*_compiler().argv, *mode, "-fPIC", f'-DMARKER="{marker}"', "-o", str(out), str(source)], check=True)
    return out


def _c_text(text: str) -> str:
    return emit(build(text, "p.ci").program)


def _run(text: str) -> str:
    return run_isolated(Request.of_text("cpu-c17", "p.ci", text), time_limit=300).output


def _entry_is_recorded(path: Path) -> bool:
    return read_manifest(path.parent).get(path.name) == file_digest(path) is not None


def test_the_cache_is_private(cache):
    compiler = _compiler()
    library = build_library(_c_text(PROGRAM), compiler)
    for directory in (cache.parent, cache, runtime_directory(compiler), library.parent):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    assert _entry_is_recorded(library)
    assert all(_entry_is_recorded(obj) for obj in runtime_objects(compiler))
    assert (library.parent / MANIFEST).is_file()


def test_an_open_cache_of_this_users_is_made_private(cache):
    cache.mkdir(parents=True)
    cache.chmod(0o755)
    cache.parent.chmod(0o775)
    assert cache_directory() == cache
    assert stat.S_IMODE(cache.stat().st_mode) == stat.S_IMODE(cache.parent.stat().st_mode) == 0o700


@pytest.mark.skipif(os.getuid() != 0, reason="giving a directory to another user needs root")
def test_a_cache_of_another_users_is_refused(cache):
    cache.mkdir(parents=True)
    os.chown(cache, 65534, 65534)
    with pytest.raises(CacheError, match=r"^the compile cache directory .*/c17 belongs to another user "
                                         r"\(uid 65534, this user is uid 0\); remove it or set XDG_CACHE_HOME"):
        cache_directory()
    with pytest.raises(IsolatedRunError, match="^the compile cache directory .* belongs to another user"):
        _run(PROGRAM)


def test_a_base_anyone_may_change_is_refused(cache):
    base = cache.parent.parent
    base.mkdir()
    base.chmod(0o777)
    with pytest.raises(CacheError, match=r"may be changed by any user \(mode 0777, no sticky bit\)"):
        cache_directory()
    base.chmod(0o1777)  # /tmp's mode: only an owner may rename or remove
    assert cache_directory() == cache


def test_a_relative_xdg_cache_home_is_ignored(monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert cache_root() == Path.home() / ".cache" / "cint-ls" / "c17"


def test_a_planted_library_is_never_loaded(cache, tmp_path):
    compiler = _compiler()
    marker = tmp_path / "marker"
    planted = _plant(tmp_path, marker, "so")
    entry = library_directory(_c_text(PROGRAM), compiler)
    entry.mkdir(parents=True, mode=0o700)
    shutil.copy(planted, entry / "program.so")
    assert _run(PROGRAM) == "49\n"
    assert not marker.exists()
    assert file_digest(entry / "program.so") != file_digest(planted) and _entry_is_recorded(entry / "program.so")


def test_a_library_planted_after_a_build_is_never_loaded(cache, tmp_path):
    """The entry exists and has its manifest; the library is replaced afterwards."""
    marker = tmp_path / "marker"
    planted = _plant(tmp_path, marker, "so")
    assert _run(PROGRAM) == "49\n"
    library = library_directory(_c_text(PROGRAM), _compiler()) / "program.so"
    shutil.copy(planted, library)
    assert _run(PROGRAM) == "49\n"
    assert not marker.exists() and _entry_is_recorded(library)


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_library_of_another_users_is_not_loaded_even_with_its_manifest(cache, tmp_path):
    compiler = _compiler()
    marker = tmp_path / "marker"
    planted = _plant(tmp_path, marker, "so")
    entry = library_directory(_c_text(PROGRAM), compiler)
    entry.mkdir(parents=True, mode=0o700)
    shutil.copy(planted, entry / "program.so")
    (entry / MANIFEST).write_text(f"{file_digest(entry / 'program.so')}  program.so\n")
    for path in (entry / "program.so", entry / MANIFEST):
        os.chown(path, 65534, 65534)
    assert _run(PROGRAM) == "49\n"
    assert not marker.exists() and _entry_is_recorded(entry / "program.so")


def test_a_planted_runtime_object_is_never_linked(cache, tmp_path):
    compiler = _compiler()
    marker = tmp_path / "marker"
    planted = _plant(tmp_path, marker, "o")
    directory = runtime_directory(compiler)
    directory.mkdir(parents=True, mode=0o700)
    shutil.copy(planted, directory / "alias.o")  # before the first build
    assert _run(PROGRAM) == "49\n"
    assert not marker.exists()
    assert _entry_is_recorded(directory / "alias.o") and file_digest(directory / "alias.o") != file_digest(planted)
    shutil.copy(planted, directory / "context.o")  # after it: the next program's link
    assert _run(OTHER) == "27\n"
    assert not marker.exists() and _entry_is_recorded(directory / "context.o")
    library = library_directory(_c_text(OTHER), compiler) / "program.so"
    assert b"cint_planted_symbol" not in library.read_bytes()


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "no manifest"])
def test_a_damaged_library_heals_on_the_next_run(cache, damage):
    assert _run(PROGRAM) == "49\n"
    library = library_directory(_c_text(PROGRAM), _compiler()) / "program.so"
    data = library.read_bytes()
    if damage == "truncated":
        library.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        library.write_bytes(os.urandom(len(data)))
    elif damage == "empty":
        library.write_bytes(b"")
    else:
        (library.parent / MANIFEST).unlink()
    assert _run(PROGRAM) == "49\n"
    assert _entry_is_recorded(library)
    assert _run(PROGRAM) == "49\n"


def test_a_truncated_runtime_object_heals(cache):
    compiler = _compiler()
    assert _run(PROGRAM) == "49\n"
    obj = runtime_directory(compiler) / "dispatch.o"
    obj.write_bytes(obj.read_bytes()[:100])
    assert _run(OTHER) == "27\n"
    assert _entry_is_recorded(obj)


def test_a_symbolic_link_for_an_entry_is_refused(cache, tmp_path):
    compiler = _compiler()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    cache_directory()
    runtime_directory(compiler).symlink_to(elsewhere)
    with pytest.raises(CacheError, match=r"^the compile cache directory .*/rt-[0-9a-f]+ is a symbolic link; "):
        runtime_objects(compiler)


def test_a_second_build_reuses_the_entry(cache):
    compiler = _compiler()
    text = _c_text(PROGRAM)
    library = build_library(text, compiler)
    stamps = [p.stat().st_mtime_ns for p in (library, library.parent / MANIFEST)]
    assert build_library(text, compiler) == library
    assert [p.stat().st_mtime_ns for p in (library, library.parent / MANIFEST)] == stamps
    assert not [p for p in library.parent.iterdir() if p.name.startswith(".")]  # no temporaries left


def test_a_cpu_library_does_not_compile_gpu_cudas_host(cache):
    # Issue 14's cold Run: gpu-cuda's host (rt/gpu_host.c, rt/gpu_cuda.c) is compiled
    # only for a library built for gpu-cuda; then the manifest records both kinds.
    from cint_ls.exec.c17.build import RT_GPU_SOURCES, runtime_sources

    compiler = _compiler()
    build_library(_c_text(PROGRAM), compiler)
    runtime = runtime_directory(compiler)
    gpu_objects = [runtime / (Path(name).stem + ".o") for name in RT_GPU_SOURCES]
    assert not any(obj.exists() for obj in gpu_objects)
    cpu_objects = runtime_objects(compiler)
    assert len(cpu_objects) == len(runtime_sources()) and all(_entry_is_recorded(o) for o in cpu_objects)
    gpu_library = build_library("#define CINT_GPU_CUDA 1\n" + _c_text(PROGRAM), compiler, gpu=True)
    assert all(_entry_is_recorded(obj) for obj in gpu_objects)
    assert all(_entry_is_recorded(obj) for obj in cpu_objects)  # kept, not compiled again
    assert gpu_library.parent != build_library(_c_text(PROGRAM), compiler).parent
