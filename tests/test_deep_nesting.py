"""Issue 13 item 3: deep nesting of statements and expressions never crashes a pass.
Nesting is bounded once, in the syntax layer (C1003 beyond MAX_NESTING_DEPTH levels of
blocks and expressions together), and every pass after it (analysis, IR, the
executors, the emitters, the editor features) handles nesting up to that bound: the
170 nested blocks or 246 nested calls of the issue used to raise RecursionError in
every command and empty the editor's answers for the whole file."""

from __future__ import annotations

import pytest

from cint_ls import ide
from cint_ls.cli.main import main
from cint_ls.ide import find
from cint_ls.ide.document import Document
from cint_ls.syntax.lower import MAX_NESTING_DEPTH

DEPTH = MAX_NESTING_DEPTH - 6  # statements inside the function body and the entry add a few levels


def blocks(d: int) -> str:
    return "void go() {\n" + "{ " * d + '"x\\n";' + " }" * d + "\n}\ngo();\n"


def ifs(d: int) -> str:
    return "void go() {\n    I64 a = 1;\n" + "if (a > 0) { " * d + '"x\\n";' + " }" * d + "\n}\ngo();\n"


def calls(d: int) -> str:
    return "I64 f(I64 v) { return v +% 1; }\nvoid go() {\n    I64 a = " + "f(" * d + "1" + ")" * d \
        + ';\n    "{a}\\n";\n}\ngo();\n'


def kernel(d: int) -> str:
    return ("kernel k[n](in I64[n] x, out I64[n] y) over [i: n] {\n    I64 a = x[i];\n"
            + "if (a > 0) { " * d + "y[i] = a;" + " }" * d
            + '\n}\nvoid go() {\n    I64[2] x = [1, 2];\n    I64[2] y;\n    k(x, y);\n    "{y[1]}\\n";\n}\ngo();\n')


PROGRAMS = {"blocks": (blocks, "x\n"), "ifs": (ifs, "x\n"), "calls": (calls, f"{DEPTH + 1}\n"), "kernel": (kernel, "2\n")}


@pytest.fixture(params=sorted(PROGRAMS))
def deep(request, tmp_path):
    make, output = PROGRAMS[request.param]
    path = tmp_path / f"{request.param}.ci"
    path.write_text(make(DEPTH))
    return path, output, make


def test_every_command_handles_the_deepest_nesting_allowed(deep, capsys):
    path, output, _ = deep
    for command in (["check"], ["emit-ir"], ["emit-c"], ["emit-ptx"], ["parse"]):
        assert main([*command, str(path)]) == 0, command
    capsys.readouterr()
    assert main(["run", str(path)]) == 0
    assert capsys.readouterr().out == output


def test_deeper_nesting_is_one_diagnostic(deep, capsys, tmp_path):
    _, _, make = deep
    path = tmp_path / "deeper.ci"
    path.write_text(make(MAX_NESTING_DEPTH + 20))
    assert main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"error[C1003]: nested more than {MAX_NESTING_DEPTH} levels deep" in err and "Traceback" not in err


def test_the_editor_answers_on_the_deepest_nesting_allowed(deep, monkeypatch):
    monkeypatch.setattr(find, "STRICT", True)  # a swallowed RecursionError fails the test
    path, _, _ = deep
    text = path.read_text()
    doc = Document(path.as_uri(), text, 1, str(path))
    assert ide.diagnostics(doc, ("cpu-c17", "gpu-cuda")) == []
    assert ide.semantic_tokens(doc) and ide.document_symbols(doc)
    assert ide.format_document(doc) is not None
    for offset in range(0, len(text.encode()), 53):
        ide.hover(doc, offset)


@pytest.mark.needs_cc
def test_cpu_c17_and_gpu_cuda_run_the_deepest_kernel(tmp_path, capsys):
    path = tmp_path / "kernel.ci"
    path.write_text(kernel(DEPTH))
    assert main(["run", "--executor", "cpu-c17", "--check", "gpu-cuda", "--device", "sim", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out == "2\n" and err.endswith("agree at 2 boundaries\n")
