"""Builds the cint tree-sitter grammar (grammar/src) into the extension
cint_ls.syntax._binding, and ships the grammar's queries inside the package.

The binding uses only the limited C API of Python 3.11 (PyCapsule_New, PyModule_Create),
so it is built as `_binding.abi3.so` and the wheel is tagged `cp311-abi3`: one build
serves every CPython from 3.11 on (the VS Code extension bundles one wheel for all of
them; docs/editors.md). The sdist carries grammar/src, so building it needs only a C
compiler, not the tree-sitter CLI or Node.js."""

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent


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
    cmdclass={"build_py": BuildPyWithQueries},
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
