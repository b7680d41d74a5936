"""Issue 29, a fast first impression: the run-time's objects are prebuilt when the
package is built (setup.py's build_c17_runtime, by toolchain.prebuild), and a first Run
on a fresh cache copies them and compiles only the program, where they are what this
compiler would make: the same compiler (argv and version), flags, headers and source.
Anything else (another compiler, other flags, a changed source or header, a corrupt
object, `CINT_C17_PREBUILT=off`) compiles the run-time into the cache, as before.

The compiler here is a script that logs its arguments and runs the real one; the
prebuilt run-time of the slow tests is made by that script, so that the log shows
every compiler invocation of the Run. A second script at another path is "another
compiler" with the same version."""

from __future__ import annotations

import json
import os
import shlex
import shutil
from pathlib import Path

import pytest

from cint_ls.exec.c17 import toolchain
from cint_ls.exec.c17.build import (
    build_library,
    file_digest,
    find_compiler,
    read_manifest,
    runtime_directory,
    runtime_sources,
)
from cint_ls.exec.c17.library import emit
from cint_ls.exec.c17.toolchain import (
    FLAGS,
    PREBUILT_MANIFEST,
    RT_HEADERS,
    RT_SOURCES,
    Compiler,
    object_name,
    source_digests,
    usable_prebuilt,
)
from cint_ls.exec.executors import ExecutorUnavailable
from cint_ls.ir.build import build

pytestmark = pytest.mark.needs_cc

PROGRAM = 'I64 sq(I64 x) { return x * x; }\n"{sq(7)}\\n";\n'
CPU_SOURCES = runtime_sources()


def _real_compiler() -> Compiler:
    try:
        return find_compiler()
    except ExecutorUnavailable:
        pytest.skip("no C compiler")


def _logging_compiler(path: Path, real: Compiler) -> Path:
    """A compiler that appends its arguments to $CINT_TEST_CC_LOG and runs `real`."""
    path.write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "$CINT_TEST_CC_LOG"\nexec {shlex.join(real.argv)} "$@"\n')
    path.chmod(0o755)
    return path


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A prebuilt run-time made by a logging compiler, as setup.py makes the package's."""
    root = tmp_path_factory.mktemp("prebuilt")
    real = _real_compiler()
    wrapper = _logging_compiler(root / "cc", real)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CINT_TEST_CC_LOG", str(root / "build.log"))
        toolchain.prebuild(root / "prebuilt", toolchain.identify((str(wrapper),)), jobs=2)
    return {"root": root, "wrapper": wrapper, "real": real}


@pytest.fixture
def fresh(made, tmp_path, monkeypatch):
    """A fresh cache, CC the logging compiler, and a copy of the prebuilt run-time as the
    package's (each test may damage its copy)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    log = tmp_path / "cc.log"
    monkeypatch.setenv("CINT_TEST_CC_LOG", str(log))
    prebuilt = tmp_path / "prebuilt"
    shutil.copytree(made["root"] / "prebuilt", prebuilt)
    monkeypatch.setattr(toolchain, "PREBUILT_DIR", prebuilt)
    monkeypatch.setenv("CC", str(made["wrapper"]))
    monkeypatch.delenv(toolchain.PREBUILT_ENV, raising=False)
    return {"log": log, "prebuilt": prebuilt, "wrapper": made["wrapper"], "compiler": find_compiler()}


def _edit_manifest(prebuilt: Path, edit) -> None:
    manifest = json.loads((prebuilt / PREBUILT_MANIFEST).read_text())
    edit(manifest)
    (prebuilt / PREBUILT_MANIFEST).write_text(json.dumps(manifest))


def _compiled_runtime_files(log: Path) -> list[str]:
    """The rt/*.c files the log shows compiled."""
    lines = log.read_text().splitlines() if log.exists() else []
    return sorted(Path(word).name for line in lines for word in line.split()
                  if word.endswith(".c") and Path(word).parent.name == "rt")


def _first_run(fresh) -> Path:
    return build_library(emit(build(PROGRAM, "p.ci").program), fresh["compiler"])


@pytest.mark.slow
def test_a_first_run_with_the_prebuilt_runtime_compiles_only_the_program(fresh):
    library = _first_run(fresh)
    lines = fresh["log"].read_text().splitlines()
    invocations = [line for line in lines if line != "--version"]
    assert len(invocations) == 2, lines  # the program, and the link
    assert invocations[0].endswith("program.c -o " + invocations[0].split(" -o ")[-1])
    assert invocations[1].startswith("-shared ")
    assert _compiled_runtime_files(fresh["log"]) == []
    # The cache holds the prebuilt objects, recorded in its manifest as if compiled.
    runtime = runtime_directory(fresh["compiler"])
    recorded = read_manifest(runtime)
    prebuilt = json.loads((fresh["prebuilt"] / PREBUILT_MANIFEST).read_text())["objects"]
    for name in CPU_SOURCES:
        obj = object_name(name)
        assert recorded[obj] == file_digest(runtime / obj) == prebuilt[obj]["sha256"], obj
    assert not any(name.startswith(".") for name in os.listdir(runtime))  # no temporaries left
    assert read_manifest(library.parent)["program.so"] == file_digest(library)


@pytest.mark.slow
def test_another_compiler_compiles_the_runtime_itself(made, fresh, tmp_path, monkeypatch):
    # Same program and version, another path: not the compiler the run-time was built by.
    other = _logging_compiler(tmp_path / "other-cc", made["real"])
    monkeypatch.setenv("CC", str(other))
    compiler = find_compiler()
    assert compiler.version == fresh["compiler"].version == made["real"].version
    build_library(emit(build(PROGRAM, "p.ci").program), compiler)
    assert _compiled_runtime_files(fresh["log"]) == sorted(CPU_SOURCES)


@pytest.mark.slow
def test_other_flags_compile_the_runtime_itself(fresh):
    _edit_manifest(fresh["prebuilt"], lambda m: m.update(flags=[*FLAGS[:-3], "-O3", *FLAGS[-2:]]))
    _first_run(fresh)
    assert _compiled_runtime_files(fresh["log"]) == sorted(CPU_SOURCES)


@pytest.mark.slow
def test_a_changed_source_compiles_only_its_object(fresh):
    # The prebuilt pool.o was made from another rt/pool.c than the one installed now.
    _edit_manifest(fresh["prebuilt"], lambda m: m["objects"]["pool.o"].update(source_sha256="0" * 64))
    _first_run(fresh)
    assert _compiled_runtime_files(fresh["log"]) == ["pool.c"]


@pytest.mark.slow
def test_a_changed_header_compiles_the_whole_runtime(fresh):
    _edit_manifest(fresh["prebuilt"], lambda m: m["headers"].update({"cint_rt.h": "0" * 64}))
    _first_run(fresh)
    assert _compiled_runtime_files(fresh["log"]) == sorted(CPU_SOURCES)


@pytest.mark.slow
@pytest.mark.parametrize("damage", ["corrupt", "truncated", "missing"])
def test_a_damaged_prebuilt_object_is_compiled_instead(fresh, damage):
    obj = fresh["prebuilt"] / "dispatch.o"
    data = obj.read_bytes()
    if damage == "corrupt":
        obj.write_bytes(data[:1000] + bytes(b ^ 0xFF for b in data[1000:1010]) + data[1010:])
    elif damage == "truncated":
        obj.write_bytes(data[: len(data) // 2])
    else:
        obj.unlink()
    _first_run(fresh)
    assert _compiled_runtime_files(fresh["log"]) == ["dispatch.c"]
    cached = runtime_directory(fresh["compiler"]) / "dispatch.o"
    assert read_manifest(cached.parent)["dispatch.o"] == file_digest(cached)
    if damage != "missing":
        assert file_digest(cached) != toolchain.sha256_of(obj)


@pytest.mark.slow
def test_prebuilt_off_compiles_the_runtime_itself(fresh, monkeypatch):
    monkeypatch.setenv(toolchain.PREBUILT_ENV, "off")
    _first_run(fresh)
    assert _compiled_runtime_files(fresh["log"]) == sorted(CPU_SOURCES)


@pytest.mark.slow
def test_a_planted_object_beside_the_prebuilt_runtime_is_replaced(fresh, tmp_path):
    # Issue 13's rule holds with the prebuilt run-time: the cache uses only what its
    # manifest records; a planted alias.o is replaced by the prebuilt one.
    runtime = runtime_directory(fresh["compiler"])
    runtime.mkdir(parents=True, mode=0o700)
    (runtime / "alias.o").write_bytes(b"\x7fELF planted")
    _first_run(fresh)
    assert _compiled_runtime_files(fresh["log"]) == []
    expected = json.loads((fresh["prebuilt"] / PREBUILT_MANIFEST).read_text())["objects"]["alias.o"]["sha256"]
    assert file_digest(runtime / "alias.o") == read_manifest(runtime)["alias.o"] == expected


# ---- the matching alone (no compiler run): quick


def _manifest(directory: Path, compiler: Compiler) -> Path:
    digests = source_digests()
    directory.mkdir()
    (directory / PREBUILT_MANIFEST).write_text(json.dumps({
        "format": toolchain.PREBUILT_FORMAT,
        "compiler": {"argv": list(compiler.argv), "version": compiler.version},
        "flags": list(FLAGS),
        "headers": {name: digests[name] for name in RT_HEADERS},
        "objects": {object_name(name): {"source": name, "source_sha256": digests[name], "sha256": "1" * 64}
                    for name in RT_SOURCES},
    }))
    return directory


def test_prebuilt_objects_match_only_the_same_compiler_flags_and_sources(tmp_path, monkeypatch):
    monkeypatch.delenv(toolchain.PREBUILT_ENV, raising=False)
    compiler = Compiler(("/usr/bin/cc",), "cc (Debian 12.2.0-14+deb12u1) 12.2.0")
    directory = _manifest(tmp_path / "prebuilt", compiler)
    assert set(usable_prebuilt(compiler, directory)) == {object_name(name) for name in RT_SOURCES}
    assert usable_prebuilt(Compiler(("/usr/bin/gcc",), compiler.version), directory) == {}
    assert usable_prebuilt(Compiler(compiler.argv, "cc (Debian 12.2.0-14) 12.3.0"), directory) == {}
    assert usable_prebuilt(Compiler((*compiler.argv, "-m32"), compiler.version), directory) == {}
    monkeypatch.setenv(toolchain.PREBUILT_ENV, "off")
    assert usable_prebuilt(compiler, directory) == {}
    monkeypatch.delenv(toolchain.PREBUILT_ENV)

    def edited(edit) -> dict:
        manifest = json.loads((directory / PREBUILT_MANIFEST).read_text())
        edit(manifest)
        other = tmp_path / f"edited-{len(list(tmp_path.iterdir()))}"
        other.mkdir()
        (other / PREBUILT_MANIFEST).write_text(json.dumps(manifest))
        return usable_prebuilt(compiler, other)

    assert edited(lambda m: m.update(flags=[*FLAGS, "-g"])) == {}
    assert edited(lambda m: m.update(format=0)) == {}
    assert edited(lambda m: m["headers"].update({"cint_ops.h": "0" * 64})) == {}
    assert "reduce.o" not in edited(lambda m: m["objects"]["reduce.o"].update(source_sha256="0" * 64))
    assert len(edited(lambda m: m["objects"]["reduce.o"].update(source_sha256="0" * 64))) == len(RT_SOURCES) - 1
    assert edited(lambda m: m.pop("objects")) == {}
    (directory / PREBUILT_MANIFEST).write_text("{not json")
    assert usable_prebuilt(compiler, directory) == {}
    assert usable_prebuilt(compiler, tmp_path / "none") == {}



def test_a_prebuild_the_compiler_fails_leaves_nothing_usable(tmp_path, monkeypatch):
    # setup.py then warns and ships no prebuilt run-time: cpu-c17 compiles it at its first
    # Run. A half-built directory has no manifest, so none of its objects is ever taken.
    import subprocess

    monkeypatch.delenv(toolchain.PREBUILT_ENV, raising=False)
    failing = Compiler(("/bin/false",), "")
    directory = _manifest(tmp_path / "prebuilt", failing)  # as an earlier, good build left it
    with pytest.raises(subprocess.CalledProcessError):
        toolchain.prebuild(directory, failing, jobs=2)
    assert not (directory / PREBUILT_MANIFEST).exists()
    assert usable_prebuilt(failing, directory) == {}
