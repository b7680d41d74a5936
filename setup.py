"""Builds the cint tree-sitter grammar (grammar/src) into the extension
cint_ls.syntax._binding, and ships the grammar's queries inside the package.

The binding uses only the limited C API of Python 3.11 (PyCapsule_New, PyModule_Create),
so it is built as `_binding.abi3.so` and the wheel is tagged `cp311-abi3`: one build
serves every CPython from 3.11 on (the VS Code extension bundles one wheel for all of
them; docs/editors.md). The sdist carries grammar/src, so building it needs only a C
compiler, not the tree-sitter CLI or Node.js.

cpu-c17's C run-time (cint_ls/exec/c17/rt/*.c, and gpu-cuda's host in C,
cint_ls/exec/cuda/rt/*.c) is compiled here too, as the grammar is,
into cint_ls/exec/c17/prebuilt/ with a manifest (compiler, flags, sources' sha256), by
the compiler and the flags cpu-c17 chooses at run time ($CC, else cc, gcc, clang:
cint_ls/exec/c17/toolchain.py, loaded by its path since the package's dependencies are
not installed here): a first Run then compiles only the program (issue 29). Where the
compiler fails, the package is built without them and cpu-c17 compiles the run-time
at its first Run, as it always could."""

import importlib.util
import os
import shutil
import sys
from pathlib import Path

from setuptools import Command, Extension, setup
from setuptools.command.build import build
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent
TOOLCHAIN = (ROOT / "cint_ls" / "exec" / "c17" / "toolchain.py").resolve()
PREBUILT = ("cint_ls", "exec", "c17", "prebuilt")


class BuildPyWithQueries(build_py):
    """Copy grammar/queries/*.scm into cint_ls/syntax/queries of the build, and the
    diagnostics' catalogue (docs/diagnostics.md, which the server's diagnostics link to)
    into cint_ls/server/docs."""

    def run(self):
        super().run()
        target = Path(self.build_lib) / "cint_ls" / "syntax" / "queries"
        target.mkdir(parents=True, exist_ok=True)
        for query in sorted((ROOT / "grammar" / "queries").glob("*.scm")):
            shutil.copyfile(query, target / query.name)
        docs = Path(self.build_lib) / "cint_ls" / "server" / "docs"
        docs.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / "docs" / "diagnostics.md", docs / "diagnostics.md")


def _toolchain():
    spec = importlib.util.spec_from_file_location("_cint_c17_toolchain", TOOLCHAIN)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class BuildC17Runtime(Command):
    """Compile cpu-c17's run-time into the build (the wheel), or into the source tree
    for an editable install (`editable_mode`, as build_ext builds in place)."""

    description = "compile cpu-c17's C run-time (prebuilt objects and their manifest)"
    user_options = []

    def initialize_options(self):
        self.build_lib = None
        self.editable_mode = False
        self.outputs = []

    def finalize_options(self):
        self.set_undefined_options("build", ("build_lib", "build_lib"))

    def run(self):
        toolchain = _toolchain()
        base = ROOT if self.editable_mode else Path(self.build_lib)
        target = base.joinpath(*PREBUILT)
        if target.exists():
            shutil.rmtree(target)
        try:
            compiler = toolchain.find_compiler()
            jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
            objects = toolchain.prebuild(target, compiler, jobs)
        except (toolchain.CompilerMissing, OSError, toolchain.subprocess.CalledProcessError) as error:
            detail = getattr(error, "stderr", None) or str(error)
            print(f"warning: cpu-c17's run-time was not prebuilt ({detail.strip().splitlines()[0]}); "
                  "cpu-c17 compiles it at its first Run", file=sys.stderr)
            shutil.rmtree(target, ignore_errors=True)
            return
        self.outputs = [str(path) for path in (*objects, target / toolchain.PREBUILT_MANIFEST)]
        print(f"prebuilt cpu-c17's run-time with {' '.join(compiler.argv)} ({compiler.version}) into {target}")

    def get_outputs(self):
        return [] if self.editable_mode else self.outputs


class BuildWithC17Runtime(build):
    sub_commands = [*build.sub_commands, ("build_c17_runtime", None)]


setup(
    ext_modules=[
        Extension(
            "cint_ls.syntax._binding",
            sources=["cint_ls/syntax/binding.c", "grammar/src/parser.c"],
            include_dirs=["grammar/src"],
            extra_compile_args=["-std=c11", "-O2"],
            define_macros=[
                ("PY_SSIZE_T_CLEAN", None),
                ("TREE_SITTER_HIDE_SYMBOLS", None),
                ("Py_LIMITED_API", "0x030B0000"),  # 3.11
            ],
            py_limited_api=True,
        )
    ],
    cmdclass={"build_py": BuildPyWithQueries, "build_c17_runtime": BuildC17Runtime, "build": BuildWithC17Runtime},
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
