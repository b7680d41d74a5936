"""Folding ranges (from grammar/queries/folds.scm) and code lenses."""

from __future__ import annotations

from ide_support import conformance, doc_of

from cint_ls.ide import code_lenses, folding_ranges
from cint_ls.syntax.queries import query, query_text


def test_the_fold_query_loads():
    assert "@fold" in query_text("folds")
    assert query("folds") is not None
    assert query("no-such-query") is None


def test_heat_folds():
    ranges = {(f.start_line, f.end_line, f.kind) for f in folding_ranges(conformance("heat_e1.ci"))}
    assert (0, 16, None) in ranges  # the kernel, to the line before its `}`
    assert (0, 5, None) in ranges  # the multi-line parameter list
    assert (9, 13, None) in ranges  # the if block
    assert (19, 25, None) in ranges  # step()
    assert all(end > start for start, end, _ in ranges)


def test_comment_and_switch_folds():
    doc = doc_of("/* one\n   two\n   three */\nvoid f(I64 x) {\n    switch (x) {\n        case 1:\n"
                 "            x = 2;\n            x = 3;\n        default: x = 4;\n    }\n}\n")
    ranges = {(f.start_line, f.end_line, f.kind) for f in folding_ranges(doc)}
    assert (0, 2, "comment") in ranges
    assert (4, 8, None) in ranges  # the switch
    assert (5, 7, None) in ranges or (5, 6, None) in ranges  # case 1


def test_folds_count_a_lone_carriage_return_as_a_line_end_as_lsp_does():
    # The tree counts `\n` only; a client counts a lone `\r` too: the folds are on the
    # client's lines, as if each lone `\r` were a `\n`.
    text = conformance("heat_e1.ci").text
    lines = text.split("\n")
    mixed = "\r".join(lines[:3]) + "\n" + "\n".join(lines[3:10]) + "\r" + "\n".join(lines[10:])
    assert [(f.start_line, f.end_line, f.kind) for f in folding_ranges(doc_of(mixed))] == \
        [(f.start_line, f.end_line, f.kind) for f in folding_ranges(doc_of(text))]


def test_lenses_above_the_entry_and_exports():
    doc = doc_of("export I64 f() { return 1; }\nvoid g() {}\n\nI64 t = f();\ng();\n")
    lenses = code_lenses(doc, ["cpu-sir-interp", "cpu-c17"])
    rows = [(lens.span.line, lens.title, lens.command, lens.arguments) for lens in lenses]
    assert rows == [
        (1, "▶ Run", "cint.run", (doc.uri, "auto", "f")),
        (1, "▶ Run on cpu-sir-interp", "cint.run", (doc.uri, "cpu-sir-interp", "f")),
        (1, "▶ Run on cpu-c17", "cint.run", (doc.uri, "cpu-c17", "f")),
        (1, "Compare executors", "cint.compareExecutors", (doc.uri, "f")),
        (4, "▶ Run", "cint.run", (doc.uri, "auto")),
        (4, "▶ Run on cpu-sir-interp", "cint.run", (doc.uri, "cpu-sir-interp")),
        (4, "▶ Run on cpu-c17", "cint.run", (doc.uri, "cpu-c17")),
        (4, "Compare executors", "cint.compareExecutors", (doc.uri,)),
    ]


def test_a_debug_lens_beside_each_run_for_a_client_that_debugs():
    """cint.debug, the client's command (issue 30): [uri] for the entry, [uri, function]
    above an exported function; none for a client that does not say it debugs."""
    doc = doc_of("export I64 f() { return 1; }\nvoid g() {}\n\nI64 t = f();\ng();\n")
    rows = [(lens.span.line, lens.title, lens.command, lens.arguments)
            for lens in code_lenses(doc, ["cpu-sir-interp"], debug=True) if lens.command == "cint.debug"]
    assert rows == [(1, "Debug", "cint.debug", (doc.uri, "f")), (4, "Debug", "cint.debug", (doc.uri,))]
    assert [lens.title for lens in code_lenses(doc, ["cpu-sir-interp"], debug=True)][:2] == ["▶ Run", "Debug"]
    assert not [lens for lens in code_lenses(doc, ["cpu-sir-interp"]) if lens.command == "cint.debug"]


def test_no_lens_where_nothing_would_run():
    # A function with parameters cannot start a run (nothing gives it arguments), and a
    # function that is not exported is no entry: neither gets a lens.
    doc = doc_of("export I64 f(I64 x) { return x; }\nI64 h() { return 1; }\nexport void k() {}\n")
    assert {(lens.span.line, lens.arguments[-1]) for lens in code_lenses(doc, ["cpu-sir-interp"])} == {(3, "k")}


def test_gpu_cuda_lens_says_simulated_where_it_will_be():
    doc = doc_of("export void k() {}\n")
    executors = ["cpu-sir-interp", "gpu-cuda"]
    titles = [lens.title for lens in code_lenses(doc, executors, frozenset({"gpu-cuda"}))]
    assert titles == ["▶ Run", "▶ Run on cpu-sir-interp", "▶ Run on gpu-cuda (simulated)", "Compare executors"]
    titles = [lens.title for lens in code_lenses(doc, executors, frozenset())]
    assert titles == ["▶ Run", "▶ Run on cpu-sir-interp", "▶ Run on gpu-cuda", "Compare executors"]


def test_code_lenses_take_the_forecast_and_never_ask_the_probe(monkeypatch):
    """Issue 29: an ide function does no I/O; the lenses reached the CUDA probe (which
    may open the driver or start a process) through running.run.executor_label. The
    server passes the forecast in (running.run.simulated_executors)."""
    from cint_ls.exec.cuda import probe

    def asked(*args, **kwargs):
        raise AssertionError("the ide asked the CUDA probe")

    monkeypatch.setattr(probe, "simulated_reason", asked)
    monkeypatch.setattr(probe, "wait", asked)
    doc = doc_of("export void k() {}\n")
    titles = [lens.title for lens in code_lenses(doc, ["cpu-sir-interp", "gpu-cuda"])]
    assert titles == ["▶ Run", "▶ Run on cpu-sir-interp", "▶ Run on gpu-cuda", "Compare executors"]


def test_no_entry_no_lens():
    assert code_lenses(doc_of("void g() {}\n"), ["cpu-sir-interp"]) == []
    lenses = code_lenses(conformance("heat_e1.ci"), ["cpu-sir-interp"])
    assert [lens.span.line for lens in lenses] == [29, 29, 29]
