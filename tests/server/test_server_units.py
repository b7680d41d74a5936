"""The server's pieces without a client: settings, conversions, the comparison of runs,
and the guard that turns a failing feature into an empty answer and a log message."""

from __future__ import annotations

from fractions import Fraction

import pytest
from lsprotocol import types as lsp

from cint_ls.analysis.types import I64
from cint_ls.exec.faults import Address, FaultRecord, StackFrame
from cint_ls.exec.runtime import RunResult
from cint_ls.ide.document import Document
from cint_ls.running.run import RunOutcome
from cint_ls.server import convert, heap
from cint_ls.server.handlers import Route, serve
from cint_ls.server.handlers.features import minimal_edit
from cint_ls.server.runs import compare_executors
from cint_ls.server.session import Session
from cint_ls.server.settings import DEFAULT_TARGETS, Settings, parse_settings
from cint_ls.syntax.source import SourceText

# ---- the heap (heap.py)

def _rss_mb() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) // 1024 for line in status if line.startswith("VmRSS"))


@pytest.mark.skipif(heap._LIBC is None, reason="glibc's allocator only")
def test_the_allocator_takes_one_arena_and_gives_freed_pages_back():
    assert heap.one_arena()
    # 48 MB in blocks above pymalloc's 512 bytes (malloc's), every 64th kept: the rest
    # freed in holes between kept blocks, which free() leaves resident (it gives back
    # only the top of the heap) and a trim does not.
    blocks = [bytes(600) for _ in range(80_000)]
    kept = blocks[::64]
    del blocks
    before = _rss_mb()
    heap.trim()
    assert before - _rss_mb() > 20, (before, _rss_mb())
    assert all(block == bytes(600) for block in kept)


# ---- settings

def test_settings_defaults_and_shapes():
    assert parse_settings(None)[0] == Settings()
    assert Settings().targets == DEFAULT_TARGETS == ("cpu-c17", "gpu-cuda")
    nested, warnings = parse_settings({"targets": ["gpu-cuda"], "fuel": 7, "run": {"timeLimit": 2.5},
                                       "inlayHints": {"stepOrdinals": False}, "c17": {"compiler": "clang"}})
    assert warnings == []
    assert nested == Settings(("gpu-cuda",), 7, 2.5, False, "clang")
    dotted, _ = parse_settings({"cint.targets": ["gpu-cuda"], "cint.fuel": 7, "cint.run.timeLimit": 2.5,
                                "cint.inlayHints.stepOrdinals": False, "cint.c17.compiler": "clang"})
    assert dotted == nested
    under_cint, _ = parse_settings({"cint": {"targets": ["gpu-cuda"], "fuel": 7, "run.timeLimit": 2.5,
                                             "inlayHints": False, "c17": {"compiler": "clang"}}})
    assert under_cint == nested
    assert parse_settings({"fuel": None})[0].fuel is None
    assert parse_settings({"targets": []})[0].targets == ()


def test_settings_of_the_wrong_type_keep_the_default():
    settings, warnings = parse_settings({"fuel": -1, "run": {"timeLimit": "soon"}, "targets": "gpu-cuda",
                                         "inlayHints": {"stepOrdinals": "yes"}, "c17": {"compiler": 3}})
    assert settings == Settings(targets=("gpu-cuda",))
    assert len(warnings) == 4
    settings, warnings = parse_settings({"targets": ["gpu-cuda", "npu"], "fuel": True})
    assert settings.targets == ("gpu-cuda",) and settings.fuel is None and len(warnings) == 2


# ---- conversions

def test_positions_are_utf16():
    source = SourceText("a😀b\né\n")
    assert convert.lsp_position(source, 5) == lsp.Position(0, 3)  # `b`: after a 2-unit emoji
    assert convert.offset_of(source, lsp.Position(0, 3)) == 5
    assert convert.offset_of(source, lsp.Position(1, 1)) == len("a😀b\né".encode())
    assert convert.offset_of(source, lsp.Position(9, 9)) == len(source.data)
    assert convert.offsets_of(source, lsp.Range(start=lsp.Position(1, 0), end=lsp.Position(0, 0))) == (0, 7)


def test_token_arrays_of_consecutive_ranges_join_into_one():
    def encode(tokens):  # (line, character) each, sorted: LSP's relative encoding
        data, prev_line, prev_char = [], 0, 0
        for line, char in tokens:
            data += [line - prev_line, char - prev_char if line == prev_line else char, 1, 0, 0]
            prev_line, prev_char = line, char
        return data

    tokens = [(0, 0), (0, 7), (2, 4), (3, 0), (3, 9), (7, 2)]
    # Ranges of lines 0-2, 2-4 (line 2 again: its token is in both) and 5-: each encoded
    # from line 0, character 0.
    pieces = [encode(tokens[:3]), encode(tokens[2:5]), encode(tokens[5:]), []]
    assert convert.join_token_data(pieces) == encode(tokens)
    assert convert.join_token_data([[], encode(tokens)]) == encode(tokens)


def test_minimal_edit():
    source = SourceText("void go() {\n  I64  x=1;\n}\n")
    edit = minimal_edit(source, "void go() {\n    I64 x = 1;\n}\n")
    assert edit.range == lsp.Range(start=lsp.Position(1, 2), end=lsp.Position(1, 9))
    assert edit.new_text == "  I64 x = "
    same = minimal_edit(source, source.text)
    assert same.range.start == same.range.end and same.new_text == ""


HEAT = """kernel k[n](in I64[n] a, out I64[n] b) over [i: n] {
    b[i] = a[i] * 2;
}
void go() { I64[2] a = [1, 2]; I64[2] b; k(a, b); }
go();
"""


def _record(**changes) -> FaultRecord:
    source = SourceText(HEAT)
    star = HEAT.index("*")
    fields = dict(
        code="E_OVERFLOW", operation="mul.checked.i64", operands=((I64, 2 ** 62), (I64, 2)),
        exact=2 ** 63, limit=(I64, 2 ** 63 - 1), span=source.span(star, star + 1),
        stack=(StackFrame("m.k", source.span(HEAT.index("k(a"), HEAT.index("k(a") + 1)),
               StackFrame("m.go", source.span(HEAT.index("go();"), HEAT.index("go();") + 2))),
        address=Address("m.k", 0, 1, 1, 1), fuel_consumed=3)
    fields.update(changes)
    return FaultRecord(**fields)


def test_fault_diagnostic():
    doc = Document("file:///m.ci", HEAT)
    d = convert.fault_diagnostic(doc, _record(), "cpu-sir-interp")
    assert d.code == "E_OVERFLOW" and d.severity == lsp.DiagnosticSeverity.Error
    assert d.range.start == lsp.Position(1, 16)  # the `*` of `a[i] * 2`
    assert "mul.checked.i64(I64 4611686018427387904, I64 2)" in d.message
    assert "exact 9223372036854775808" in d.message and "work-item 1, step 1" in d.message
    assert [r.message for r in d.related_information] == ["dispatch 0 of m.k", "call of m.go"]
    assert d.data["fault"]["code"] == "E_OVERFLOW"
    # A fixed-point exact value prints as a decimal.
    assert "exact 2.5" in convert.fault_diagnostic(doc, _record(exact=Fraction(5, 2)), "x").message
    # A deep recursion does not give thousands of related entries.
    deep = _record(stack=_record().stack[:1] * 5000, address=None)
    related = convert.fault_diagnostic(doc, deep, "x").related_information
    assert len(related) == convert.MAX_FRAMES and "frames left out" in related[-1].message


# ---- comparison

def _outcome(executor: str, output="1\n", fault=None, fuel=3, error=None) -> RunOutcome:
    result = None if error else RunResult(output, fault, fuel, executor)
    return RunOutcome(executor, SourceText("", "m.ci"), result, error, seconds=0.1)


def first_difference(a: RunOutcome, b: RunOutcome) -> str | None:
    return compare_executors([a, b])["difference"]


def test_compare():
    """The server's Compare goes through the one comparer (running.compare)."""
    a, b = _outcome("cpu-sir-interp"), _outcome("cpu-c17")
    assert first_difference(a, b) is None
    assert "line 2" in first_difference(_outcome("x", "1\n2\n"), _outcome("y", "1\n3\n"))
    assert "fuel" in first_difference(a, _outcome("y", fuel=4))
    assert "only x faulted" in first_difference(_outcome("x", fault=_record()), b)
    assert "differ in address" in first_difference(_outcome("x", fault=_record()),
                                                   _outcome("y", fault=_record(address=Address("m.k", 0, 1, 2, 1))))
    verdict = compare_executors([a, b, _outcome("gpu-cuda", error="gpu-cuda cannot build this program: neg")])
    assert verdict["agree"] and verdict["compared"] == ["cpu-sir-interp", "cpu-c17"]
    assert "gpu-cuda gave no result" in verdict["message"]
    verdict = compare_executors([a, _outcome("cpu-c17", output="2\n")])
    assert not verdict["agree"] and "disagree" in verdict["message"]


def test_compare_has_one_verdict_type():
    """Issue 29: the server's Compare had a `Verdict` of its own beside running.compare's
    `Comparison`; its difference is now the Comparison's sentence, and its JSON is the
    same (`cint/compareResult`)."""
    from cint_ls.running.compare import compare
    from cint_ls.server import runs

    assert not hasattr(runs, "Verdict")
    a, b = _outcome("cpu-sir-interp"), _outcome("cpu-c17", output="2\n")
    comparison = compare(a.result, b.result)
    assert compare_executors([a, b]) == {
        "compared": ["cpu-sir-interp", "cpu-c17"], "skipped": [], "agree": False,
        "difference": comparison.sentence,
        "message": f"the executors disagree: {comparison.sentence}"}
    assert comparison.line == f"check: {comparison.sentence}"
    skipped = compare_executors([a, _outcome("gpu-cuda", error="no GPU")])
    assert skipped == {"compared": ["cpu-sir-interp"], "skipped": [{"executor": "gpu-cuda", "reason": "no GPU"}],
                       "agree": True, "difference": None,
                       "message": "only cpu-sir-interp gave a result: nothing to compare; gpu-cuda gave no result: no GPU"}


# ---- the guard

def test_a_failing_feature_gives_an_empty_answer_and_a_log_message(monkeypatch):
    session = Session()
    logged: list[str] = []
    monkeypatch.setattr(session, "log", lambda kind, message: logged.append(message))

    def broken(session, params):
        raise RuntimeError("boom")

    route = Route("textDocument/documentSymbol", "notify", broken, empty=list)
    assert serve(session, route, None) == []
    assert logged and "boom" in logged[0] and "textDocument/documentSymbol" in logged[0]


def test_tokens_edit_is_one_edit_of_whole_tokens():
    import random

    rng = random.Random(7)
    for _ in range(500):
        old = [rng.randrange(4) for _ in range(5 * rng.randrange(0, 12))]
        new = list(old)
        for _ in range(rng.randrange(0, 3)):
            at = 5 * rng.randrange(0, len(new) // 5 + 1)
            new[at:at + 5 * rng.randrange(0, 2)] = [rng.randrange(4) for _ in range(5 * rng.randrange(0, 2))]
        edit = convert.tokens_edit(old, new)
        if old == new:
            assert edit is None
            continue
        start, deleted, data = edit
        assert start % 5 == 0 and deleted % 5 == 0 and len(data) % 5 == 0
        assert old[:start] + data + old[start + deleted:] == new


def test_document_symbols_are_lsprotocols_json():
    import json

    from pygls.protocol import default_converter

    from cint_ls import ide

    doc = Document("file:///m.ci", "// é😀\n" + HEAT.replace("a[i] * 2", "a[i] * 2 /* é */"))
    source = doc.source

    def made(symbol) -> lsp.DocumentSymbol:
        return lsp.DocumentSymbol(
            name=symbol.name or "?", kind=convert.symbol_kind(symbol.kind),
            range=convert.lsp_range(source, symbol.span), selection_range=convert.lsp_range(source, symbol.selection),
            detail=symbol.detail or None, children=[made(c) for c in symbol.children] or None)

    symbols = ide.document_symbols(doc.snapshot())
    assert symbols and any(s.children for s in symbols)
    expected = json.loads(json.dumps(default_converter().unstructure([made(s) for s in symbols])))
    assert [convert.document_symbol_json(source, s) for s in symbols] == expected


# ---- heavy requests' steps (scheduling.steps)

def _drive(start, current=lambda: True, handled=None):
    import asyncio

    from cint_ls.server.scheduling import steps

    async def nothing() -> None:
        pass

    return asyncio.run(steps(start, current, handled or nothing, "file:///a.ci"))


def test_a_heavy_answer_is_freed_without_the_cyclic_collector():
    """A request's answer goes with its last reference: with the heap frozen after each
    publication, anything kept alive by a cycle stays until a rare full collection
    (the token array and JSON of a 50,000-line file, megabytes a request)."""
    import gc
    import weakref

    class Answer:
        pass

    def work():
        yield
        return Answer()

    gc.disable()
    try:
        gone = weakref.ref(_drive(work))
        assert gone() is None
    finally:
        gc.enable()


def test_steps_run_one_a_turn_after_the_messages_and_stop_when_the_document_changes():
    """Each step waits for the messages that arrived (`handled`); once the document
    changed, ContentModified before the next step, and the generator is closed."""
    from pygls.exceptions import JsonRpcContentModified

    log: list[str] = []
    closed: list[bool] = []

    async def handled() -> None:
        log.append("handled")

    def work():
        try:
            for k in range(3):
                log.append(f"step {k}")
                yield
            return "done"
        finally:
            closed.append(True)

    assert _drive(work, handled=handled) == "done"
    assert log == ["handled", "handled", "step 0", "handled", "step 1", "handled", "step 2", "handled"]
    assert closed == [True]
    log.clear()
    fresh = iter([True, True, False])
    with pytest.raises(JsonRpcContentModified):
        _drive(work, current=lambda: next(fresh))
    assert log == ["step 0"] and closed == [True, True]
    assert _drive(lambda: 42) == 42  # a feature computed in one step
