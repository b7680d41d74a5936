"""Recovery that finds the real mistake, and quick fixes that never change what a program
means (issue 32, points 1 and 2): a missing `}` is placed where the indentation says its
block ends, or not offered; a missing `;` is reported where it is missing, once, with a
fix, and nothing cascades from it."""

from __future__ import annotations

from ide_support import doc_of
from test_ide_actions import apply

from cint_ls import ide
from cint_ls.running.run import RunRequest, run

INTENDED = """void go() {
    I64 x = 1;
    if (x == 1) {
        "one\\n";
    }
    "done\\n";
}

go();
"""
# The same program with the `if`'s `}` left out: tree-sitter closes the function at the
# end of the file, which moves the top-level `go();` into the function.
UNCLOSED_IF = INTENDED.replace('"one\\n";\n    }\n', '"one\\n";\n')


def output(text: str) -> str:
    outcome = run(RunRequest("/tmp/t.ci", text, "cpu-sir-interp", isolate=False))
    assert outcome.result is not None, outcome.summary
    return outcome.result.output


def errors(doc) -> list:
    return [d for d in ide.diagnostics(doc) if d.severity == 1]


def only_fix(doc):
    (d,) = errors(doc)
    actions = ide.code_actions(doc, 0, len(doc.source.data))
    (action,) = actions
    assert action.diagnostic == d
    return d, action


def test_insert_brace_goes_where_the_indentation_ends_the_block():
    doc = doc_of(UNCLOSED_IF)
    d, action = only_fix(doc)
    assert d.code == "C1002" and (d.span.line, d.span.column) == (4, 17)  # after `"one\n";`, not at the end
    assert "the `{` at 3:17" in d.message
    assert action.title == "Insert `}`"
    fixed = apply(doc, action.changes)
    assert fixed == INTENDED  # the `}` on its own line, at the `if`'s indentation
    assert ide.diagnostics(doc_of(fixed)) == []
    assert output(fixed) == output(INTENDED) == "one\ndone\n"


def test_insert_brace_for_an_unclosed_function_body():
    text = "void go() {\n    \"a\\n\";\n\nvoid other() {\n    \"b\\n\";\n}\n\ngo();\nother();\n"
    doc = doc_of(text)
    d, action = only_fix(doc)
    assert d.span.line == 2
    fixed = apply(doc, action.changes)
    assert fixed.startswith("void go() {\n    \"a\\n\";\n}\n")
    assert ide.diagnostics(doc_of(fixed)) == [] and output(fixed) == "a\nb\n"


def test_no_brace_fix_where_the_indentation_is_ambiguous():
    # No indentation at all: the layout does not say which block is unclosed.
    text = 'void go() {\nI64 x = 1;\nif (x == 1) {\n"one\\n";\n"done\\n";\n}\ngo();\n'
    doc = doc_of(text)
    (d,) = errors(doc)
    assert d.code == "C1002" and "`}`" in d.message
    assert ide.code_actions(doc, 0, len(doc.source.data)) == []
    # Tabs and spaces mixed: no width to compare either.
    doc = doc_of(UNCLOSED_IF.replace('    "done', '\t"done'))
    assert ide.code_actions(doc, 0, len(doc.source.data)) == []


MISSING_SEMICOLON = """kernel scale[n](in I64[n] a, I64 k, out I64[n] b) over [i: n] {
    b[i] = a[i] * k;
}

void go() {
    I64[3] a = [1, 2, 3];
    I64[3] b;
    I64 k = 2
    scale(a, k, b);
    "{b[0]} {b[2]}\\n";
}

go();
"""


def test_missing_semicolon_before_a_dispatch_is_one_c1002_with_a_fix():
    doc = doc_of(MISSING_SEMICOLON)
    d, action = only_fix(doc)  # no C5016 "a dispatch has no value", no "unknown name `k`"
    assert d.code == "C1002" and d.message == "expected `;` after the declaration"
    assert (d.span.line, d.span.column) == (8, 14)
    fixed = apply(doc, action.changes)
    assert "I64 k = 2;\n    scale(a, k, b);" in fixed
    assert ide.diagnostics(doc_of(fixed)) == [] and output(fixed) == "2 6\n"


def test_missing_semicolon_before_a_call_an_assignment_an_if_and_a_closing_brace():
    body = ["I64 k = 2", "k = k + 1", "f(k)", "if (k == 3) {\n        \"three\\n\";\n    }", "\"{k}\\n\""]
    # Leave out the `;` after statement i: before a call, an assignment, an `if`, a `}`.
    for i in (0, 1, 2, 4):
        lines = [s if j == i or s.startswith("if") else s + ";" for j, s in enumerate(body)]
        text = "void f(I64 v) {\n}\n\nvoid go() {\n    " + "\n    ".join(lines) + "\n}\n\ngo();\n"
        doc = doc_of(text)
        d, action = only_fix(doc)
        assert d.code == "C1002" and d.span.line == 5 + i + (2 if i == 4 else 0), (text, d)
        fixed = apply(doc, action.changes)
        assert ide.diagnostics(doc_of(fixed)) == [], fixed
        assert output(fixed) == "three\n3\n"
