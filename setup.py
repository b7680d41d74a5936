"""Builds the cint tree-sitter grammar (grammar/src) into the extension
cint_ls.syntax._binding, and ships the grammar's queries inside the package."""

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent


class BuildPyWithQueries(build_py):
    """Copy grammar/queries/*.scm into cint_ls/syntax/queries of the build."""

    def run(self):
        super().run()
        target = Path(self.build_lib) / "cint_ls" / "syntax" / "queries"
        target.mkdir(parents=True, exist_ok=True)
        for query in sorted((ROOT / "grammar" / "queries").glob("*.scm")):
            shutil.copyfile(query, target / query.name)


setup(
    ext_modules=[
        Extension(
            "cint_ls.syntax._binding",
            sources=["cint_ls/syntax/binding.c", "grammar/src/parser.c"],
            include_dirs=["grammar/src"],
            extra_compile_args=["-std=c11", "-O2"],
            define_macros=[("PY_SSIZE_T_CLEAN", None), ("TREE_SITTER_HIDE_SYMBOLS", None)],
        )
    ],
    cmdclass={"build_py": BuildPyWithQueries},
)
