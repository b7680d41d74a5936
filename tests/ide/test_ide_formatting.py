"""Formatting: canonical, idempotent, never a change of meaning."""

from __future__ import annotations

import pytest
import tree_sitter
from conftest import CONFORMANCE, conformance_programs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ide_support import SPEC_EXAMPLES, doc_of

from cint_ls import ide
from cint_ls.ide import format_document, format_in_steps
from cint_ls.ide.formatting import _comment_query, _Formatter, shape
from cint_ls.syntax import Position, TextEdit, parse_source

PROGRAMS = [p for p in conformance_programs() if not parse_source(p.read_text()).diagnostics]
HEAT = (CONFORMANCE / "heat_e1.ci").read_text()
KERNEL = HEAT[:HEAT.index("void step()")]  # the kernel `diffuse`, then a blank line


def fmt(text: str) -> str | None:
    return format_document(doc_of(text))


def assert_round_trip(text: str) -> str:
    out = fmt(text)
    assert out is not None
    assert fmt(out) == out  # idempotent
    assert shape(parse_source(out).module) == shape(parse_source(text).module)  # same program
    return out


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_every_conformance_program_round_trips(path):
    assert_round_trip(path.read_text())


@pytest.mark.parametrize("path", SPEC_EXAMPLES, ids=lambda p: p.name)
def test_spec_examples_are_fixed_points(path):
    text = path.read_text()
    assert fmt(text) == text


def test_canonical_style():
    messy = ("kernel   k[ n ]( in I64[ n ] a,out I64[n]b )over[ i:n ]{b[ i ]=a[i]*2+ -a[i] ;}\n\n\n\n"
             "void go( ){I64[3]a=[1,2,3,];I64[3] b;if(a[0]>0){k(a[0..2],b[ ..2 ]);}else if(true){}else{b[0]=1;}\n"
             "for j in 0 .. 3 {  while(j<2){break;}  }\nswitch(a[0]){case 1:b[0]=2;case -2: b[0] = 3; b[1] = 4;"
             "default:{}}  \"{ a[0] } x\\n\" ;}\ngo();")
    assert fmt(messy) == (
        "kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {\n"
        "    b[i] = a[i] * 2 + -a[i];\n"
        "}\n"
        "\n"
        "void go() {\n"
        "    I64[3] a = [1, 2, 3];\n"
        "    I64[3] b;\n"
        "    if (a[0] > 0) {\n"
        "        k(a[0..2], b[..2]);\n"
        "    } else if (true) {} else {\n"
        "        b[0] = 1;\n"
        "    }\n"
        "    for j in 0..3 {\n"
        "        while (j < 2) {\n"
        "            break;\n"
        "        }\n"
        "    }\n"
        "    switch (a[0]) {\n"
        "        case 1: b[0] = 2;\n"
        "        case -2:\n"
        "            b[0] = 3;\n"
        "            b[1] = 4;\n"
        "        default:\n"
        "            {}\n"
        "    }\n"
        "    \"{a[0]} x\\n\";\n"
        "}\n"
        "go();\n")
    assert_round_trip(messy)


def test_multiline_parameters_and_kept_breaks():
    text = ("kernel k[n](in I64[n] a,\n   out I64[n] b) over [i: n] where n > 1 {\n"
            "    b[i] = a[i] +\n  a[i]\n * 2;\n}\n")
    out = assert_round_trip(text)
    assert out == ("kernel k[n](\n    in I64[n] a,\n    out I64[n] b\n) over [i: n] where n > 1 {\n"
                   "    b[i] = a[i]\n        + a[i]\n        * 2;\n}\n")


def test_comments_are_kept():
    text = ("// header\n\n/* block\n   comment */\nkernel k[n]( // the inputs\n"
            "    in I64[n] a, // first\n    // the output\n    out I64[n] b\n) over [i: n] { // body\n"
            "    // leading\n    b[i] = a[i]; // trailing\n\n    // before the end\n}  // after\n"
            "void f() {\n    I64 x = 1 + /* inside */ 2;\n    switch (x) {\n        // a case\n"
            "        case 1: x = 2; // one\n        default:\n            // none\n            x = 3;\n    }\n}\n"
            "// the end\n")
    out = assert_round_trip(text)
    for comment in ("// header", "/* block\n   comment */", "kernel k[n]( // the inputs", "// first", "// the output",
                    "// body", "// leading", "b[i] = a[i]; // trailing", "// before the end", "} // after",
                    "/* inside */", "// a case", "case 1: x = 2; // one", "// none", "// the end"):
        assert comment in out, comment
    assert out.count("//") + out.count("/*") == text.count("//") + text.count("/*")


def test_blank_lines_are_kept_once():
    out = assert_round_trip("void f() {\n\n    I64 x = 1;\n\n\n\n    I64 y = 2;\n\n}\n\n\n\ngo();\n")
    assert out == "void f() {\n    I64 x = 1;\n\n    I64 y = 2;\n}\n\ngo();\n"


@pytest.mark.parametrize("text", ["kernel k[n](", "void f() { I64 x = ; }", "I64 x = 1\n", "\"open\n"])
def test_broken_files_are_not_formatted(text):
    assert fmt(text) is None


def test_empty_and_comment_only():
    assert fmt("") == ""
    assert fmt("   \n\n") == ""
    assert fmt("// only\n") == "// only\n"


# ---- expression nesting, generated

ATOMS = st.sampled_from(["a", "b", "c", "1", "0x_ff", "I64.max", "x[i]", "m[1, j]", "f(a)", "true"])
BINARY = st.sampled_from(["+", "-", "*", "/", "%", "+%", "*|", "-|", "<<", ">>", "&", "|", "^", "==", "<=", "&&",
                          "||"])
UNARY = st.sampled_from(["-", "!", "~"])
SPACE = st.sampled_from(["", " ", "  ", "\n", "\n        "])


@st.composite
def expressions(draw, depth=0):
    choice = draw(st.integers(0, 5 if depth < 6 else 0))
    if choice == 0:
        return [draw(ATOMS)]
    if choice == 1:
        return [draw(UNARY)] + draw(expressions(depth + 1))
    if choice == 2:
        return ["("] + draw(expressions(depth + 1)) + [")"]
    if choice == 3:
        return draw(expressions(depth + 1)) + ["as", draw(st.sampled_from(["I32", "U8", "Q16.16"]))]
    if choice == 4:
        args = [draw(expressions(depth + 1)) for _ in range(draw(st.integers(1, 3)))]
        out = ["g", "("]
        for k, arg in enumerate(args):
            out += ([","] if k else []) + arg
        return out + [")"]
    return draw(expressions(depth + 1)) + [draw(BINARY)] + draw(expressions(depth + 1))


@st.composite
def programs(draw):
    tokens = draw(expressions())
    text = tokens[0]
    for token in tokens[1:]:
        gap = draw(SPACE)
        word = (text[-1].isalnum() or text[-1] in "_.") and (token[0].isalnum() or token[0] == "_")
        if word and gap == "":
            gap = " "
        if text[-1] in "-!~" and token[0] in "-":
            gap = gap or " "
        text += gap + token
    return f"void f() {{\n    I64 v = {text};\n}}\n"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(programs())
def test_generated_expressions_round_trip(text):
    if parse_source(text).diagnostics:
        return  # the generator can write a token pair that does not parse; not the formatter's
    assert_round_trip(text)


# ---- format_in_steps: the same answer, a step at a time

def _stepped(doc, seconds: float, between=lambda: None):
    """Drive `format_in_steps`, calling `between()` between its steps."""
    steps = format_in_steps(doc, seconds)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value
        between()


def test_in_steps_is_the_same_answer_on_every_conformance_program():
    for path in PROGRAMS:
        text = path.read_text()
        pauses = []
        assert _stepped(doc_of(text), 0, lambda: pauses.append(1)) == fmt(text), path.name
        assert len(pauses) >= len(parse_source(text).module.items) - 1  # one step per element at most


def test_in_steps_reads_its_version_while_another_is_read_between():
    # Between steps a newer version of the same document, read meanwhile, places the
    # items the two share its own way. Each step reads its own version's places.
    # Comments between and inside the items: read at the newer version's places (a
    # few hundred bytes further on), they would go with the wrong items.
    text = "// first\n" + "\n".join(f"// before d{k}\n" + KERNEL.replace("kernel diffuse", f"kernel d{k}", 1)
                                     .replace("{\n", "{ // inside\n", 1) for k in range(6))
    doc = doc_of(text)
    old = doc.snapshot()
    doc.apply([TextEdit(Position(0, 0), Position(0, 0), "// one\n" * 60)], 2)
    newer = doc.snapshot()
    reads = []

    def between():
        reads.append(len(ide.diagnostics(newer)))
        with newer.reading():
            newer.module  # noqa: B018 - its anchors in place

    assert _stepped(old, 0, between) == fmt(text)
    assert len(reads) >= 5
    assert _stepped(newer, 0) == fmt(newer.text)


def test_in_steps_abandoned_keeps_nothing():
    doc = doc_of(KERNEL + "\n" + KERNEL.replace("kernel diffuse", "kernel other", 1))
    steps = format_in_steps(doc, 0)
    next(steps)
    steps.close()  # a heavy request cancelled between two steps
    assert "format" not in doc.memo
    assert list(format_in_steps(doc, 10)) == []  # one step: nothing yielded
    assert _stepped(doc, 0) == fmt(doc.text)
    assert list(format_in_steps(doc, 0)) == []  # kept for the version


def test_in_steps_of_a_broken_file_is_none():
    assert _stepped(doc_of("kernel k( {"), 0) is None


def test_comments_collected_as_the_elements_go_are_every_comment_in_order():
    # The formatter queries the comments one element's range at a time: together,
    # every comment of the tree, each once, in order.
    texts = [p.read_text() for p in PROGRAMS] + [
        "// a\nkernel k[n](out I64[n] v) over [i: n] { // b\n    v[i] = 1; /* c */\n} // d\n/* e */\n// f",
    ]
    for text in texts:
        doc = doc_of(text)
        with doc.reading():
            formatter = _Formatter(doc)
            for _ in formatter.run():
                pass
            every = tree_sitter.QueryCursor(_comment_query()).captures(doc.tree.root_node).get("comment", [])
        assert [(c.start, c.end) for c in formatter.comments] == sorted((n.start_byte, n.end_byte) for n in every)
