#!/usr/bin/env python3
"""Bundles cint-ls into the VS Code extension: `bundled/libs` from the package's own wheel.

    python3 scripts/bundle_server.py [--wheel dist/cint_ls-0.1.0-cp311-abi3-linux_x86_64.whl]
    python3 scripts/bundle_server.py --if-missing     # vscode:prepublish: build it when absent

1. The wheel: `--wheel` (or `$CINT_WHEEL`), else `pip wheel` of the repository (two folders
   up). Its version must be the extension's (package.json), and it must be `abi3`: its one
   compiled module (the grammar) then serves every CPython from 3.11.
2. `pip install --target bundled/libs --only-binary=:all:` of the wheel and its dependencies,
   with this interpreter.
3. The dependencies with compiled modules of their own (tree-sitter, cffi: one build per
   CPython minor version, `_binding.cpython-312-x86_64-linux-gnu.so`) get the binaries of
   every other supported CPython beside their own (`pip download` of the same version for
   that Python and this platform; only the `.so` files are taken: the Python code is the
   same). So one `bundled/libs` runs under CPython 3.11 to 3.14 of this platform, and the
   .vsix is per platform (`vsce package --target linux-x64`).
4. `bin/` (scripts bound to this interpreter) and `__pycache__` are dropped; a manifest,
   `bundled/libs/cint-bundle.json`, says what is there.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
EXTENSION = HERE.parent
REPO = EXTENSION.parents[1]
LIBS = EXTENSION / "bundled" / "libs"
MANIFEST = LIBS / "cint-bundle.json"
PYTHONS = ("3.11", "3.12", "3.13", "3.14")

# vsce's --target for this machine, and the wheel platform tags pip may take for it.
_MACHINES = {
    "x86_64": ("linux-x64", "x86_64"),
    "aarch64": ("linux-arm64", "aarch64"),
}


def log(message: str) -> None:
    print(f"bundle_server: {message}", file=sys.stderr, flush=True)


def pip(*args: str) -> None:
    cmd = [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"bundle_server: {' '.join(cmd)} failed:\n{done.stdout[-2000:]}{done.stderr[-4000:]}")


def extension_version() -> str:
    return json.loads((EXTENSION / "package.json").read_text())["version"]


def platform_tags() -> tuple[str, list[str]]:
    if sys.platform != "linux" or platform.machine() not in _MACHINES:
        sys.exit(f"bundle_server: no bundle for {sys.platform}/{platform.machine()} (Linux x86_64 or aarch64)")
    target, arch = _MACHINES[platform.machine()]
    return target, [f"manylinux_2_{minor}_{arch}" for minor in (17, 28, 34)] + [f"manylinux2014_{arch}"]


def build_wheel(out: Path) -> Path:
    log(f"building the wheel of {REPO}")
    pip("wheel", "--quiet", "--no-deps", "--wheel-dir", str(out), str(REPO))
    (wheel,) = out.glob("cint_ls-*.whl")
    return wheel


def compiled_dists(libs: Path) -> dict[str, str]:
    """{distribution name: version} of the installed dependencies whose RECORD lists a
    module built for one CPython (`*.cpython-3NN-*.so`)."""
    found = {}
    for info in libs.glob("*.dist-info"):
        record = (info / "RECORD").read_text() if (info / "RECORD").exists() else ""
        if re.search(r"\.cpython-3\d+-[^,]*\.so,", record):
            meta = (info / "METADATA").read_text()
            name = re.search(r"^Name: (.+)$", meta, re.M)[1].strip()
            version = re.search(r"^Version: (.+)$", meta, re.M)[1].strip()
            found[name] = version
    return found


def add_other_pythons(libs: Path, platforms: list[str], pythons: list[str], tmp: Path) -> dict[str, list[str]]:
    """The compiled modules of every other CPython in `pythons`, beside this one's."""
    own = f"{sys.version_info.major}.{sys.version_info.minor}"
    added: dict[str, list[str]] = {}
    for name, version in sorted(compiled_dists(libs).items()):
        added[name] = [own]
        for python in pythons:
            if python == own:
                continue
            tag = "cp" + python.replace(".", "")
            where = tmp / f"{name}-{tag}"
            platform_args = [arg for p in platforms for arg in ("--platform", p)]
            pip("download", "--quiet", "--no-deps", "--only-binary=:all:", "--dest", str(where),
                "--python-version", python, "--implementation", "cp", "--abi", tag, *platform_args,
                f"{name}=={version}")
            (wheel,) = where.glob("*.whl")
            with zipfile.ZipFile(wheel) as archive:
                modules = [n for n in archive.namelist() if re.search(rf"\.cpython-{tag[2:]}-[^/]*\.so$", n)]
                if not modules:
                    sys.exit(f"bundle_server: {wheel.name} has no module for CPython {python}")
                for member in modules:
                    archive.extract(member, libs)
            added[name].append(python)
    return added


def bundle(wheel: Path, pythons: list[str]) -> dict:
    version = extension_version()
    match = re.fullmatch(r"cint_ls-([^-]+)-cp3\d+-abi3-linux_\w+\.whl", wheel.name)
    if not match:
        sys.exit(f"bundle_server: {wheel.name} is not an abi3 Linux wheel of cint-ls (setup.py builds one)")
    if match[1] != version:
        sys.exit(f"bundle_server: the wheel is cint-ls {match[1]}, the extension {version}: they must be equal")
    target, platforms = platform_tags()
    if sys.version_info < (3, 11):  # noqa: UP036 - any python3 may run this script
        sys.exit("bundle_server: run it with Python 3.11 or later")
    shutil.rmtree(LIBS, ignore_errors=True)
    LIBS.mkdir(parents=True)
    log(f"installing {wheel.name} and its dependencies into {LIBS.relative_to(EXTENSION)}")
    pip("install", "--quiet", "--no-compile", "--only-binary=:all:", "--target", str(LIBS), str(wheel))
    with tempfile.TemporaryDirectory() as tmp:
        compiled = add_other_pythons(LIBS, platforms, pythons, Path(tmp))
    shutil.rmtree(LIBS / "bin", ignore_errors=True)
    for cache in list(LIBS.rglob("__pycache__")):
        shutil.rmtree(cache, ignore_errors=True)
    manifest = {
        "cint-ls": version,
        "wheel": wheel.name,
        "target": target,
        "pythons": pythons,
        "compiled": compiled,
        "grammar": "abi3 (CPython 3.11+)",
    }
    MANIFEST.write_text(json.dumps(manifest, indent=2) + "\n")
    size = sum(f.stat().st_size for f in LIBS.rglob("*") if f.is_file())
    log(f"cint-ls {version} for {target}, CPython {', '.join(pythons)}: {size / 1e6:.1f} MB in bundled/libs")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheel", default=os.environ.get("CINT_WHEEL"), help="the wheel (default: pip wheel of the repository)")
    parser.add_argument("--pythons", default=",".join(PYTHONS), help="CPython versions to carry binaries for")
    parser.add_argument("--if-missing", action="store_true",
                        help="keep a bundle of the extension's version; build one when there is none")
    args = parser.parse_args(argv)
    if args.if_missing and MANIFEST.exists():
        have = json.loads(MANIFEST.read_text()).get("cint-ls")
        if have == extension_version():
            log(f"bundled/libs has cint-ls {have}: kept")
            return 0
        log(f"bundled/libs has cint-ls {have}, the extension is {extension_version()}: rebuilding")
    pythons = [p.strip() for p in args.pythons.split(",") if p.strip()]
    if args.wheel:
        bundle(Path(args.wheel).resolve(), pythons)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            bundle(build_wheel(Path(tmp)), pythons)
    return 0


if __name__ == "__main__":
    sys.exit(main())
