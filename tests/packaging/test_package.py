"""The package as a user gets it: `python -m build` (an sdist, and a wheel built from the
sdist with only a C compiler), then the wheel installed by `pipx install` into an
environment of its own, with no access to this checkout, running `cint` and `cint-ls`.

`CINT_WHEEL=dist/cint_ls-….whl` tests a wheel built already (CI builds it once for this
test and for the VS Code extension's bundle); otherwise the test builds one. pipx is used
when it is installed (CI installs it), else a fresh virtual environment and pip.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import cint_ls

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE = REPO / "tests" / "conformance"

pytestmark = [pytest.mark.slow, pytest.mark.needs_cc]


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("timeout", 600)
    return subprocess.run(cmd, capture_output=True, text=True, **kwargs)


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    """The wheel (and the sdist, when this test built them)."""
    given = os.environ.get("CINT_WHEEL")
    if given:
        wheel = Path(given).resolve()
        assert wheel.is_file(), f"CINT_WHEEL={given} is not a file"
        sdists = sorted(wheel.parent.glob("cint_ls-*.tar.gz"))
        return {"wheel": wheel, **({"sdist": sdists[-1]} if sdists else {})}
    try:
        import build  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("the `build` package is missing in CI (it is in the dev extra)")
        pytest.skip("`pip install build` to build the wheel (or set CINT_WHEEL)")
    out = tmp_path_factory.mktemp("dist")
    # sdist first, then the wheel from the unpacked sdist: what pip does with an sdist.
    proc = run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO)])
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    (wheel,) = out.glob("cint_ls-*.whl")
    (sdist,) = out.glob("cint_ls-*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


def test_wheel_is_abi3_with_the_grammar_and_its_queries(dist):
    wheel = dist["wheel"]
    # One build for every CPython from 3.11 (the VS Code extension bundles this wheel).
    assert re.fullmatch(rf"cint_ls-{re.escape(cint_ls.__version__)}-cp311-abi3-linux_\w+\.whl", wheel.name), wheel.name
    names = zipfile.ZipFile(wheel).namelist()
    assert "cint_ls/syntax/_binding.abi3.so" in names
    for query in ("highlights", "locals", "folds", "indents"):
        assert f"cint_ls/syntax/queries/{query}.scm" in names
    assert "cint_ls/server/schema/run-result.schema.json" in names
    assert "cint_ls/server/docs/diagnostics.md" in names  # what an installed server's diagnostics link to
    assert "cint_ls/exec/c17/rt/cint_rt.h" in names
    assert "cint_ls/exec/c17/rt/cint_faults.h" in names  # generated from the vocabulary, committed
    assert "cint_ls/exec/cuda/rt/gpu_host.h" in names and "cint_ls/exec/cuda/rt/gpu_host.c" in names
    # cpu-c17's run-time, prebuilt as the grammar is (issue 29), one object per rt/*.c.
    from cint_ls.exec.c17.toolchain import PREBUILT_MANIFEST, RT_SOURCES, object_name

    prebuilt = {n.rsplit("/", 1)[1] for n in names if n.startswith("cint_ls/exec/c17/prebuilt/")}
    assert prebuilt == {PREBUILT_MANIFEST, *map(object_name, RT_SOURCES)}, prebuilt
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    meta = zipfile.ZipFile(wheel).read(f"cint_ls-{cint_ls.__version__}.dist-info/METADATA").decode()
    assert "License-Expression: Apache-2.0" in meta
    assert "Classifier: Programming Language :: Python :: 3.11" in meta
    assert re.search(r"^Project-URL: Repository, https://", meta, re.M)
    assert "Requires-Python: >=3.11" in meta


def test_sdist_has_the_generated_grammar(dist):
    if "sdist" not in dist:
        pytest.skip("CINT_WHEEL without an sdist beside it")
    with tarfile.open(dist["sdist"]) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    # Building from the sdist needs no tree-sitter CLI and no Node.js: the C is there.
    for name in ("grammar/src/parser.c", "grammar/src/tree_sitter/parser.h", "cint_ls/syntax/binding.c",
                 "setup.py", "pyproject.toml", "LICENSE", "grammar/queries/highlights.scm",
                 "docs/diagnostics.md", "cint_ls/exec/c17/toolchain.py", "cint_ls/exec/c17/rt/pool.c",
                 "cint_ls/exec/c17/rt/cint_faults.h", "cint_ls/exec/cuda/rt/gpu_cuda.c"):
        assert name in names, name
    # The run-time's objects are built from the sdist, never shipped in it (an editable
    # install leaves them in the source tree).
    assert not [n for n in names if n.startswith("cint_ls/exec/c17/prebuilt")]


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory) -> dict[str, str]:
    """`cint` and `cint-ls` of the wheel, installed by pipx (or pip into a fresh venv)."""
    tmp = tmp_path_factory.mktemp("install")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    pipx = shutil.which("pipx") or (str(Path(sys.executable).parent / "pipx")
                                    if (Path(sys.executable).parent / "pipx").exists() else None)
    if pipx:
        env.update(PIPX_HOME=str(tmp / "pipx"), PIPX_BIN_DIR=str(tmp / "bin"), PIPX_MAN_DIR=str(tmp / "man"))
        proc = run([pipx, "install", "--python", sys.executable, str(dist["wheel"])], env=env, cwd=tmp)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        bindir, how = tmp / "bin", "pipx"
    else:
        venv = tmp / "venv"
        proc = run([sys.executable, "-m", "venv", str(venv)], env=env)
        assert proc.returncode == 0, proc.stderr
        proc = run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(dist["wheel"])], env=env,
                   cwd=tmp)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        bindir, how = venv / "bin", "venv"
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    return {"cint": str(bindir / "cint"), "cint-ls": str(bindir / "cint-ls"), "how": how, "cwd": str(tmp),
            "env": json.dumps(env)}


FIRST_RUN = r"""
import os, tempfile
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp()
from cint_ls.exec.c17 import build, toolchain
from cint_ls.exec.c17.library import emit
from cint_ls.ir.build import build as build_ir
compiler = build.find_compiler()
usable = toolchain.usable_prebuilt(compiler)
assert sorted(usable) == sorted(map(toolchain.object_name, toolchain.RT_SOURCES)), (compiler, sorted(usable))
def compiled(compiler, name, obj):
    raise AssertionError(f"rt/{name} was compiled")
build._compile_runtime_file = compiled
program = build_ir('"{6 * 7}\\n";', "p.ci").program
print(build.build_library(emit(program), compiler))
"""


def test_installed_first_run_compiles_only_the_program(installed, tmp_path):
    # Issue 29: the wheel's prebuilt run-time is what this machine's compiler makes, so a
    # first Run on a fresh cache copies it and compiles only the program.
    env = json.loads(installed["env"])
    script = Path(installed["cint"]).resolve()
    python = script.read_text(errors="replace").splitlines()[0][2:].split()[0]
    proc = run([python, "-c", FIRST_RUN], env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.strip().endswith("program.so")


def test_installed_commands_report_the_version(installed):
    env = json.loads(installed["env"])
    for name in ("cint", "cint-ls"):
        proc = run([installed[name], "--version"], env=env, cwd=installed["cwd"])
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == f"cint-ls {cint_ls.__version__}"


def test_installed_cint_runs_a_spec_example(installed, tmp_path):
    env = json.loads(installed["env"])
    # The installed package, not this checkout: the script's interpreter imports cint_ls
    # from its own environment (the run's working directory is outside the repository).
    proc = run([installed["cint"], "run", "--executor", "cpu-sir-interp", str(CONFORMANCE / "heat_e1.ci")],
               env=env, cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr  # a fault at run time
    assert "fault[E_OVERFLOW]" in proc.stdout + proc.stderr
    assert "address: heat_e1.diffuse, dispatch 0, phase 1, work-item 20, step 22" in proc.stdout + proc.stderr
    # cpu-c17 (cffi and the C run-time that ships inside the package) agrees.
    proc = run([installed["cint"], "run", "--check", "cpu-c17", str(CONFORMANCE / "heat_tour.ci")], env=env,
               cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "after 40 steps: total=60150 center=1042 edge=72" in proc.stdout
    assert "agree" in proc.stderr + proc.stdout
    where = run([installed["cint-ls"], "--version"], env=env, cwd=tmp_path)
    assert where.returncode == 0
    # The installed interpreter's cint_ls lives in the tool's environment.
    script = Path(installed["cint"]).resolve()
    shebang = script.read_text(errors="replace").splitlines()[0]
    python = shebang[2:].split()[0]  # `#!/…/bin/python -E` (pipx) or `#!/…/bin/python`
    loc = run([python, "-c", "import cint_ls, cint_ls.syntax._binding as b; print(cint_ls.__file__); print(b.__file__)"],
              env=env, cwd=tmp_path)
    assert loc.returncode == 0, loc.stderr
    assert str(REPO) not in loc.stdout, loc.stdout
    assert loc.stdout.strip().endswith("_binding.abi3.so")
