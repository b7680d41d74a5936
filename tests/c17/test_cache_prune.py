"""Issue 14: the compile cache is pruned, least recently used first, to its limit
($CINT_C17_CACHE_LIMIT, 512 MiB by default), never removing an entry in use (its lock
held, or used within PRUNE_GRACE seconds); a pruned entry is built again, verified as
before (manifest.sha256), and a library already loaded keeps running."""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

import pytest

from cint_ls.exec.c17 import build as cache
from cint_ls.exec.c17.build import (
    DEFAULT_LIMIT,
    LOCK,
    MANIFEST,
    CacheError,
    build_library,
    cache_entries,
    cache_limit,
    find_compiler,
    prune_cache,
    read_manifest,
    runtime_directory,
)
from cint_ls.exec.c17.library import emit, run_library
from cint_ls.ir.build import build


@pytest.mark.parametrize("text,limit", [
    ("", DEFAULT_LIMIT), ("512M", 512 << 20), ("2G", 2 << 30), ("800000k", 800000 << 10), ("12345", 12345),
    ("64 MiB", 64 << 20), ("1gb", 1 << 30), ("none", None), ("0", 0),
])
def test_the_limit(monkeypatch, text, limit):
    monkeypatch.setenv("CINT_C17_CACHE_LIMIT", text)
    assert cache_limit() == limit


def test_a_limit_that_is_not_a_size_is_one_line(monkeypatch):
    monkeypatch.setenv("CINT_C17_CACHE_LIMIT", "lots")
    with pytest.raises(CacheError, match="CINT_C17_CACHE_LIMIT=lots is not a size: write bytes with an optional "
                                         "k, M or G"):
        cache_limit()


# ---- pruning a cache of its own (one run-time build for the module)


@pytest.fixture(scope="module")
def xdg(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        home = tmp_path_factory.mktemp("xdg")
        patch.setenv("XDG_CACHE_HOME", str(home))
        patch.setenv("CINT_C17_CACHE_LIMIT", "none")
        yield home


def _program(k: int) -> str:
    return emit(build(f'I64 f(I64 x) {{ return x * {k + 2}; }}\n"{{f({k})}}\\n";\n', f"p{k}.ci").program)


def _age(directory: Path, seconds: float) -> None:
    stamp = time.time() - seconds
    os.utime(directory / LOCK, (stamp, stamp))


@pytest.fixture
def entries(xdg):
    """Four program entries used 4000, 3000, 2000 and 1000 s ago, and the run-time's
    entry just now."""
    libraries = [build_library(_program(k)) for k in range(4)]
    directories = [library.parent for library in libraries]
    for k, directory in enumerate(directories):
        _age(directory, 4000 - 1000 * k)
    os.utime(runtime_directory(find_compiler()) / LOCK)
    yield directories
    prune_cache(0)  # the next test starts from the run-time alone (used just now, kept)


def _size(directory: Path) -> int:
    return next(e.size for e in cache_entries() if e.path == directory)


@pytest.mark.needs_cc
@pytest.mark.slow
def test_least_recently_used_entries_go_first(entries):
    listed = [e.path for e in cache_entries()]
    assert listed[:4] == entries  # least recently used first
    total = sum(e.size for e in cache_entries())
    limit = total - _size(entries[0]) - _size(entries[1]) // 2  # two must go to fit
    assert prune_cache(limit) == entries[:2]
    assert not entries[0].exists() and not entries[1].exists()
    assert entries[2].exists() and entries[3].exists()
    assert sum(e.size for e in cache_entries()) <= limit
    assert prune_cache(limit) == []  # under the limit: nothing more


@pytest.mark.needs_cc
@pytest.mark.slow
def test_an_entry_in_use_is_never_removed(entries):
    fd = os.open(entries[0] / LOCK, os.O_RDONLY)  # another user of the oldest entry (a shared lock)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        removed = prune_cache(0)
    finally:
        os.close(fd)
    assert removed == entries[1:]
    assert entries[0].exists() and read_manifest(entries[0])
    assert runtime_directory(find_compiler()).exists()  # used within PRUNE_GRACE: kept too


@pytest.mark.needs_cc
@pytest.mark.slow
def test_entries_used_recently_are_kept_over_the_limit(entries):
    for directory in entries:
        os.utime(directory / LOCK)
    assert prune_cache(0) == []
    _age(entries[2], cache.PRUNE_GRACE + 5)
    assert prune_cache(0) == [entries[2]]


@pytest.mark.needs_cc
@pytest.mark.slow
def test_a_pruned_entry_is_built_again_and_a_loaded_library_keeps_running(entries):
    text = _program(0)
    library = entries[0] / "program.so"
    first, _ = run_library(library, None)  # loaded by this process
    assert prune_cache(0) == entries
    assert not library.exists()
    again, _ = run_library(library, None)  # the loaded library needs no file
    assert again.output == first.output == "0\n"
    assert build_library(text) == library  # built again, verified as before
    assert read_manifest(entries[0])[library.name] == cache.file_digest(library)
    assert (entries[0] / MANIFEST).exists()


@pytest.mark.needs_cc
@pytest.mark.slow
def test_a_build_prunes_at_most_once_a_minute(entries, monkeypatch):
    monkeypatch.setenv("CINT_C17_CACHE_LIMIT", "1k")
    monkeypatch.setattr(cache, "PRUNE_INTERVAL", 3600.0)
    stamp = cache.cache_root() / cache.PRUNED
    stamp.touch()
    newest = build_library(_program(5)).parent
    assert all(d.exists() for d in entries)  # looked less than an hour ago
    monkeypatch.setattr(cache, "PRUNE_INTERVAL", 0.0)
    newer = build_library(_program(6)).parent
    assert not any(d.exists() for d in entries)
    assert newest.exists() and newer.exists()  # just used
