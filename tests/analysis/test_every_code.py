"""Every diagnostic code of the catalogue (docs/diagnostics.md), each with a program a
person might write that gets it, through the path `cint check` takes (issue 29, "unit
tests for the front end that reach every diagnostic code"; issue 32, "test every code").

The table below has one program per catalogued code: it must give that code, once, at
the place given, with a message that says what the catalogue says, and nothing else (no
second diagnostic caused by the first). The catalogue, the table and the codes the
source can give are compared both ways: a code the source gives but the catalogue
lacks is a dead link in the editor; a row no source gives, or no program reaches, is a
promise nothing keeps.
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from cint_ls.cli import commands
from cint_ls.ir.build import build
from cint_ls.server import wire
from cint_ls.syntax.lower import MAX_NESTING_DEPTH

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "docs" / "diagnostics.md"
# A row of one of the catalogue's tables: `| <a id="c5010"></a>C5010 | ...` (its anchor
# and its code, which must agree).
_ROW = re.compile(r'^\| <a id="(c[0-9]{4})"></a>(C[0-9]{4})\b')
# A code as the source spells it where it gives one: a string literal.
_LITERAL = re.compile(r"[\"'](C[0-9]{4})[\"']")


def catalogue_rows() -> dict[str, int]:
    """Each catalogued code and the 1-based line of its row."""
    rows: dict[str, int] = {}
    for number, line in enumerate(CATALOGUE.read_text(encoding="utf-8").splitlines(), 1):
        m = _ROW.match(line)
        if m:
            assert m.group(1) == m.group(2).lower(), f"line {number}: the anchor {m.group(1)} is not {m.group(2)}"
            assert m.group(2) not in rows, f"{m.group(2)} has two rows (lines {rows.get(m.group(2))} and {number})"
            rows[m.group(2)] = number
    return rows


def source_codes() -> dict[str, list[str]]:
    """Each code a string literal of cint_ls spells, and the modules that spell it."""
    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "cint_ls").rglob("*.py")):
        for code in sorted(set(_LITERAL.findall(path.read_text(encoding="utf-8")))):
            found.setdefault(code, []).append(str(path.relative_to(ROOT)))
    return found


@dataclass(frozen=True)
class Example:
    text: str
    at: str  # "line:column" of the diagnostic, 1-based as `cint check` prints it
    says: str  # a fragment of its message
    file: str = "heat.ci"
    executor: str | None = None  # `cint check --executor ...`


KERNEL = """\
kernel scale[n](in I64[n] u, I64 k, out I64[n] v) over [i: n] {
    v[i] = u[i] * k;
}
"""

EXAMPLES: dict[str, Example] = {
    # ---- C1xxx: syntax
    "C1001": Example("void go() {\n    I64 x = 1;\n    x = = 2;\n}\ngo();\n", "3:9", "unexpected `=`"),
    "C1002": Example("void go() {\n    I64 x = 1\n    \"{x}\\n\";\n}\ngo();\n", "2:14", "expected `;`"),
    # Generated, as such a line would be: the function (level 1), its statement (2) and
    # 254 parentheses fit; the 255th, at column 13 + 254, is the cut. `go` stays declared.
    "C1003": Example("void go() {\n    I64 x = " + "(" * (MAX_NESTING_DEPTH + 4) + "1" + ")" * (MAX_NESTING_DEPTH + 4)
                     + ";\n}\ngo();\n", f"2:{13 + MAX_NESTING_DEPTH - 2}", "nested more than 256 levels deep"),
    "C1004": Example("kernal scale[n](in I64[n] u, out I64[n] v) over [i: n] {\n    v[i] = u[i];\n}\n",
                     "1:1", "did you mean `kernel`"),
    "C1005": Example("void go(I64 x) {\n    if (x = 2) {\n        \"two\\n\";\n    }\n}\ngo(2);\n",
                     "2:11", "did you mean `==`"),
    # ---- C2xxx: names
    "C2001": Example("void go() {\n    I64 total = 0;\n    \"{totl}\\n\";\n}\ngo();\n", "3:7", "did you mean `total`"),
    "C2002": Example("void go() {\n    I64 x = 1;\n    I64 x = 2;\n}\ngo();\n", "3:9", "`x` is already declared"),
    "C2003": Example("I64 max(I64 a, I64 b) {\n    if (a > b) { return a; }\n    return b;\n}\n",
                     "1:5", "`max` is a built-in"),
    "C2004": Example("\"hello\\n\";\n", "1:1", "which is not an identifier", file="heat-1.ci"),
    "C2005": Example(KERNEL + "void go() {\n    I64 f = scale;\n}\ngo();\n", "5:13", "`scale` is a kernel"),
    # ---- C3xxx: types
    "C3001": Example("void go() {\n    I24 x = 1;\n}\ngo();\n", "2:5", "unknown type `I24`"),
    "C3002": Example("void go() {\n    U8 x = 256;\n}\ngo();\n", "2:12", "does not fit U8"),
    "C3003": Example("I64 add(I32 a, I64 b) {\n    return a + b;\n}\n", "2:14", "different types, I32 and I64"),
    "C3004": Example("I64 twice(I64 a) {\n    return a * 2;\n}\nI64 y = twice(1, 2);\n", "4:9",
                     "takes 1 argument, 2 given"),
    "C3006": Example("void go() {\n    I64[2] a = [1, 2];\n    I64[2] b = [3, 4];\n    a = b;\n}\ngo();\n",
                     "4:5", "`a` is an array"),
    "C3007": Example("Q16.16 half(Q16.16 a) {\n    return a >> 1;\n}\n", "2:14", "`>>` is not defined for Q16.16"),
    "C3008": Example("void go() {\n    I64[2, 2] m = [[1, 2], [3, 4]];\n    I64 x = m[0, 1, 0];\n}\ngo();\n",
                     "3:14", "give at most 2 indices, not 3"),
    "C3009": Example("I64 sign(I64 x) {\n    if (x < 0) {\n        return -1;\n    }\n}\n", "1:17",
                     "must return a I64 value on every path"),
    "C3010": Example("void go() {\n    break;\n}\ngo();\n", "2:5", "`break` is only allowed"),
    "C3011": Example("void go() {\n    I64[3] a = [1, 2];\n}\ngo();\n", "2:16", "extent 3 but the literal has 2"),
    "C3012": Example("I64 half(I64 a) {\n    return div_round(a, 2, up);\n}\n", "2:28", "rounding mode"),
    "C3013": Example("void go(I64 x) {\n    switch (x) {\n        case 1: \"one\\n\";\n        case 1: \"uno\\n\";\n"
                     "    }\n}\ngo(1);\n", "4:14", "the case 1 appears twice"),
    "C3014": Example("void go(I64 x, I64 y) {\n    switch (x) {\n        case y: \"same\\n\";\n    }\n}\ngo(1, 1);\n",
                     "3:14", "a case label is an integer constant"),
    "C3015": Example("Bool between(I64 a) {\n    return 1 < a < 3;\n}\n", "2:14", "comparisons do not chain"),
    "C3016": Example("void hello() {\n    \"hello\\n\";\n}\nI64 x = hello();\n", "4:9", "returns no value"),
    "C3017": Example("void go() {\n    I64 x = 1.5;\n}\ngo();\n", "2:13", "needs a fixed-point type"),
    "C3018": Example("void go(I64 x) {\n    x + 1;\n}\ngo(1);\n", "2:5", "value is not used"),
    "C3019": Example("void go() {\n    int x = 1;\n}\ngo();\n", "2:5", "`int` is C"),
    # ---- C5xxx: kernels, modes and aliasing
    "C5001": Example("kernel pairs[n](in I64[n * 2] u, out I64[n] v) over [i: n] {\n    v[i] = u[i];\n}\n",
                     "1:24", "extent is a size symbol"),
    "C5002": Example("kernel copy[n, m](in I64[n] u, out I64[n] v) over [i: m] {\n    v[i] = u[i];\n}\n",
                     "1:16", "the size symbol `m` is bound by no array extent"),
    "C5003": Example("kernel fill[n](in I64[n] u, I64 c, out I64[n] v) over [i: c] {\n    v[i] = u[i];\n}\n",
                     "1:59", "an over extent uses only size symbols"),
    "C5004": Example("kernel first[n](in I64[n] u, out I64[n] v) over [i: n] {\n    v[0] = u[i];\n}\n",
                     "2:5", "writes only its owned block"),
    "C5005": Example("kernel bump[n](in I64[n] u, out I64[n] v) over [i: n] {\n    u[i] = 0;\n    v[i] = 1;\n}\n",
                     "2:5", "`u` is an in parameter and is read-only"),
    "C5006": Example("kernel offset[n](in I64[n] u, I64 c, out I64[n] v) over [i: n] {\n    c = c + 1;\n"
                     "    v[i] = u[i] + c;\n}\n", "2:5", "`c` is a parameter of the kernel and is read-only"),
    "C5007": Example("kernel total[n](in I64[n] u, out I64 s) over [i: n] {\n}\n", "1:38",
                     "the scalar out parameter `s` must be the target of one `reduce s = ...;`"),
    "C5008": Example("kernel total[n](in I64[n] u, out I64 s) over [i: n] {\n    for j in 0..2 {\n"
                     "        reduce s = sum(u[i]);\n    }\n}\n", "3:9", "cannot be inside a loop"),
    "C5009": Example("kernel total[n](in I64[n] u, out I64[n] v) over [i: n] {\n    reduce v = sum(u[i]);\n}\n",
                     "2:12", "the target of `reduce` is a scalar out parameter"),
    "C5010": Example(KERNEL + "void go() {\n    I64[4] a = [1, 2, 3, 4];\n    scale(a, 2, a);\n}\ngo();\n",
                     "6:17", "the same view is passed for `u` (in) and `v` (out)"),
    "C5011": Example(KERNEL + "void go() {\n    I32[4] a = [1, 2, 3, 4];\n    I64[4] b;\n    scale(a, 2, b);\n}\n"
                     "go();\n", "7:11", "`u` takes I64 elements"),
    "C5012": Example("void go() {\n    I64 s = 0;\n    reduce s = sum(1);\n}\ngo();\n", "3:5",
                     "`reduce` is a statement of kernel bodies"),
    "C5013": Example(KERNEL + "kernel twice[n](in I64[n] u, out I64[n] v) over [i: n] {\n    scale(u, 2, v);\n}\n",
                     "5:5", "a kernel body cannot dispatch a kernel"),
    "C5014": Example("kernel grow[n](in I64[n] u, out I64[n] v) over [i: n] {\n    v[i] = v[i] + u[i];\n}\n",
                     "2:12", "`v` is an out parameter"),
    "C5015": Example("kernel total[n](in I64[n] u, inout I64 s) over [i: n] {\n    reduce s = sum(u[i]);\n}\n",
                     "1:30", "a scalar parameter is `in` or `out`"),
    "C5016": Example(KERNEL + "void go() {\n    I64[4] a = [1, 2, 3, 4];\n    I64[4] b;\n"
                     "    I64 r = scale(a, 2, b);\n}\ngo();\n", "7:13", "a dispatch is a statement of its own"),
    "C5017": Example("kernel fill[n](in I64[n] u, I64 c, out I64[n] v) over [i: n] where n > c {\n"
                     "    v[i] = u[i];\n}\n",
                     "1:72", "a where constraint compares size symbols"),
    "C5018": Example("kernel copy[n](in I64[n] u, out I64[n] v) over [i: n] {\n    v[i] = u[i];\n    return 0;\n}\n",
                     "3:12", "a kernel returns no value"),
    "C5019": Example("kernel mean[n](in I64[n] u, out I64 s) over [i: n] {\n    reduce s = avg(u[i]);\n}\n",
                     "2:16", "unknown reduction `avg`"),
    # ---- C9xxx: not implemented (SPEC-04P.2 clause 4)
    "C9001": Example("struct Point {\n    I64 x;\n    I64 y;\n}\n", "1:8", "structs are not implemented"),
    "C9002": Example("I64 limit = 10;\nBool small(I64 x) {\n    return x < limit;\n}\n", "3:16",
                     "`limit` is a top-level variable: module-level state is not implemented"),
    "C9003": Example("I32 narrow(I64 a) {\n    return a as? I32;\n}\n", "2:14",
                     "the result form `as?` is not implemented"),
    "C9004": Example("import geometry;\n", "1:1", "imports are not implemented"),
    "C9005": Example("I64 first(I64[4] a) {\n    return a[0];\n}\n", "1:11",
                     "array parameters and results of functions are not implemented"),
    "C9006": Example("void go() {\n    I64[4] a = [1, 2, 3, 4];\n    I64 x = a[0..2];\n}\ngo();\n", "3:13",
                     "a slice makes a view; views are dispatch arguments"),
    "C9007": Example("kernel copy[n](in I64[n] u, out I64[n] v) over [i: n] {\n    \"{u[i]}\\n\";\n"
                     "    v[i] = u[i];\n}\n",
                     "2:5", "printing inside a kernel body is not implemented"),
    # ---- C9100: gpu-cuda's refusals (SPEC-02P.1 10.5)
    "C9100": Example("kernel negate[n](in I64[n] u, out I64[n] v) over [i: n] {\n    v[i] = -u[i];\n}\n",
                     "2:12", "gpu-cuda refuses `neg`", executor="gpu-cuda"),
}

# `severity[CODE]: message` and, on the next line, `--> file:line:column`.
_PRINTED = re.compile(r"^(error|warning)\[([A-Z0-9_]+)\]: (.*)\n\s*--> [^\n]*:([0-9]+):([0-9]+)$", re.M)


def cint_check(example: Example, tmp_path, capsys) -> list[tuple[str, str, str]]:
    """What `cint check [--executor E] FILE` prints: (code, "line:column", message) of
    each diagnostic. Its exit status is 2 when one of them is an error."""
    path = tmp_path / example.file
    path.write_text(example.text, encoding="utf-8")
    status = commands.check(argparse.Namespace(file=str(path), executor=example.executor))
    printed = capsys.readouterr().err
    found = list(_PRINTED.finditer(printed))
    assert status == (2 if any(m.group(1) == "error" for m in found) else 0), printed
    return [(m.group(2), f"{m.group(4)}:{m.group(5)}", m.group(3)) for m in found]


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_the_code_is_reached_at_its_place(code, tmp_path, capsys):
    example = EXAMPLES[code]
    found = cint_check(example, tmp_path, capsys)
    if example.executor == "gpu-cuda":
        # With gpu-cuda asked for, the first refusal is printed again as the build error.
        assert found[-1][:2] == ("E_UNSUPPORTED", example.at), found
        found = found[:-1]
    assert [(c, at) for c, at, _ in found] == [(code, example.at)], found
    assert example.says in found[0][2], found[0][2]


def test_every_catalogued_code_has_a_program():
    assert sorted(set(catalogue_rows()) - set(EXAMPLES)) == []


def test_every_program_is_of_a_catalogued_code():
    assert sorted(set(EXAMPLES) - set(catalogue_rows())) == []


def test_every_code_the_source_gives_is_catalogued():
    """A code with no row is a diagnostic whose link in the editor leads nowhere."""
    rows = catalogue_rows()
    assert {c: where for c, where in source_codes().items() if c not in rows} == {}


def test_every_catalogued_code_is_given_by_the_source():
    """A row no module spells is a dead entry (a rule removed, its row left behind)."""
    given = source_codes()
    assert sorted(c for c in catalogue_rows() if c not in given) == []


def test_the_families_are_the_catalogues():
    """The catalogue's families, as its introduction names them (C1xxx syntax, C2xxx
    names, C3xxx types, C5xxx kernels, C9xxx refused constructs), hold every code."""
    assert {code[:2] for code in catalogue_rows()} == {"C1", "C2", "C3", "C5", "C9"}


@pytest.mark.parametrize("code", sorted(EXAMPLES))
def test_the_code_link_is_the_codes_row(code):
    """The server links a diagnostic to `diagnostics.md#L<line>` of its code's row
    (an editor opens the file as text, where `#c5010` is no place; issue 32 point 7):
    that line is the row this test reads, and the row says the code first."""
    href = wire.code_href(code)
    assert href.startswith(wire.CATALOGUE_URL + "#"), href
    if wire.CATALOGUE_URL.startswith("file:"):
        assert href.rsplit("#", 1)[1] == f"L{catalogue_rows()[code]}", href
    else:
        assert href.endswith(f"#{code.lower()}"), href


# ---- what writing the table found: positions and cascades fixed (each test fails without its fix)

def diagnostics(text: str) -> list[tuple[str, int, int]]:
    return [(d.code, d.span.line, d.span.column) for d in build(text, "heat.ci").checked.diagnostics]


def test_nesting_too_deep_is_reported_at_the_cut_and_keeps_the_function():
    """C1003 was at the start of the whole item (1:1 for a function), and the function was
    dropped, so each call of it added "unknown name". It is now at the first level past
    the bound (clang's "bracket nesting level exceeded" is at the bracket) and what
    encloses it stays: the function, its signature and the names before the cut."""
    depth = MAX_NESTING_DEPTH + 4
    text = ("I64 deep(I64 a) {\n    I64 b = a;\n    return " + "(" * depth + "b" + ")" * depth + ";\n}\n"
            "I64 x = deep(1);\n")
    assert diagnostics(text) == [("C1003", 3, 12 + MAX_NESTING_DEPTH - 2)]  # no C2001 for `deep`, no C3009
    blocks = "void go() {\n" + "{ " * depth + '"x\\n";' + " }" * depth + "\n}\ngo();\n"
    # The function is level 1 and 255 blocks fit: the 256th `{ ` is the cut.
    assert diagnostics(blocks) == [("C1003", 2, 1 + 2 * (MAX_NESTING_DEPTH - 1))]


def test_a_dispatch_in_a_kernel_body_is_one_diagnostic():
    """C5013 came with C5014 for the out array passed on: at a dispatch an out argument
    is written, not read, and the dispatch itself is the mistake."""
    assert diagnostics(EXAMPLES["C5013"].text) == [("C5013", 5, 5)]
    # The arguments are still checked as a dispatch's: an unknown name is its own mistake.
    text = KERNEL + "kernel twice[n](in I64[n] u, out I64[n] v) over [i: n] {\n    scale(u, 2, w);\n}\n"
    assert [c for c, _, _ in diagnostics(text)] == ["C5013", "C2001"]


def test_a_scalar_inout_reduce_target_is_one_diagnostic():
    """`inout I64 s` reduced into was C5015 and then C5009 ("the target of `reduce` is a
    scalar out parameter; `s` is not") for the same mode."""
    assert diagnostics(EXAMPLES["C5015"].text) == [("C5015", 1, 30)]
    # An `in` scalar is no reduce target: that is still C5009.
    text = "kernel total[n](in I64[n] u, in I64 s) over [i: n] {\n    reduce s = sum(u[i]);\n}\n"
    assert diagnostics(text) == [("C5009", 2, 12)]
