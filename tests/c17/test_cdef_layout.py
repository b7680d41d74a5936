"""The cffi declarations of the structs the hosts read or allocate (exec/c17/library.py
CDEF, exec/cuda/c_host.py GPU_CDEF) come from the run-time's headers (`header_types`):
their layout is the C compiler's, field by field."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from cint_ls.exec.c17.library import CDEF, header_types
from cint_ls.exec.c17.toolchain import RT_INCLUDES
from cint_ls.exec.cuda.c_host import GPU_CDEF

COMPILER = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
STRUCTS = ("cint_storage", "cint_view", "cint_arg", "cint_boundary", "cint_dispatch_record", "cint_gpu_device",
           "cint_gpu_row_t", "cint_gpu_stats")


@pytest.mark.skipif(COMPILER is None, reason="no C compiler")
def test_every_declared_struct_has_the_compilers_layout(tmp_path):
    import cffi

    ffi = cffi.FFI()
    ffi.cdef(CDEF + GPU_CDEF)
    lines = []
    for name in STRUCTS:
        lines.append(f'printf("{name} %zu\\n", sizeof({name}));')
        for field, _ in ffi.typeof(name).fields:
            lines.append(f'printf("{name}.{field} %zu\\n", offsetof({name}, {field}));')
    source = tmp_path / "layout.c"
    source.write_text('#include <stdio.h>\n#include <stddef.h>\n#include "cint_rt.h"\n#include "gpu_host.h"\n'
                      "int main(void) {\n" + "\n".join(lines) + "\nreturn 0;\n}\n")
    subprocess.run([COMPILER, "-std=c17", *RT_INCLUDES, "-o", str(tmp_path / "layout"), str(source)],
                   check=True)
    got = dict(line.split() for line in subprocess.run([str(tmp_path / "layout")], capture_output=True, text=True,
                                                       check=True).stdout.splitlines())
    expected = {}
    for name in STRUCTS:
        expected[name] = str(ffi.sizeof(name))
        for field, _ in ffi.typeof(name).fields:
            expected[f"{name}.{field}"] = str(ffi.offsetof(name, field))
    assert got == expected
    assert "serial" in dict(ffi.typeof("cint_storage").fields)  # the fields gpu-cuda's host added (issue 15)


def test_header_types_substitutes_defines_and_refuses_a_missing_type():
    text = header_types("@TYPES cint_rt.h: cint_view@")
    assert "int64_t extents[8];" in text and "_Bool writable;" in text and "/*" not in text
    with pytest.raises(RuntimeError, match="declares no `typedef struct"):
        header_types("@TYPES cint_rt.h: cint_no_such_type@")


def test_header_functions_are_the_header_s_prototypes_and_a_missing_one_is_refused():
    text = header_types("@FUNCTIONS cint_rt.h: cint_ctx_set_observer cint_ctx_remote_dispatches@")
    lines = text.splitlines()
    assert lines[0].startswith("void cint_ctx_set_observer(cint_ctx *ctx, void (*observer)(void *user, ")
    assert lines[0].endswith(", void *user);") and "/*" not in text
    assert lines[1] == "int64_t cint_ctx_remote_dispatches(const cint_ctx *ctx);"
    with pytest.raises(RuntimeError, match="declares no function cint_no_such_function"):
        header_types("@FUNCTIONS cint_rt.h: cint_no_such_function@")
    # Every function the hosts call is declared from a header but the program's own entry.
    from cint_ls.exec.cuda.c_host import GPU_CDEF

    assert "@" not in CDEF + GPU_CDEF
