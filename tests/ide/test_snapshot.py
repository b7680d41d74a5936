"""Snapshots and the per-item results kept across versions (issue 11): after any edits,
the kept results equal those of a fresh Document of the same text; an unchanged
version computes nothing again; an edit inside one item recomputes only that item; a
snapshot is one version for good, whatever is applied or computed after it, and from
any thread."""

from __future__ import annotations

import threading

import ide_support  # noqa: F401 - STRICT: a bug raises
from conftest import CONFORMANCE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import edit_for

from cint_ls import ide
from cint_ls.ide import find, folding, tokens
from cint_ls.ide.document import Document
from cint_ls.syntax import Position, TextEdit

HEAT = (CONFORMANCE / "heat_e1.ci").read_text()
KERNEL = HEAT[:HEAT.index("void step()")]
SEVERAL = (
    "// kernels and a function, é and 😀 in comments\n"
    + KERNEL.replace("diffuse", "d0") + "\n"
    + "/* a block\n   comment é */ " + KERNEL.replace("diffuse", "d1")
    + HEAT[HEAT.index("void step()"):].replace("diffuse(", "d1(")
    + "export I64 twice(I64 x) {\n    return x * 2;\n}\nI64 t = twice(3);\n"
)
BASES = [HEAT, SEVERAL] + [(CONFORMANCE / n).read_text() for n in ("ops_kernel.ci", "budget.ci", "acc.ci")]


def byte_of(text: str, fragment: str, after: int = 0) -> int:
    """The byte offset of `fragment` in `text` (at or after byte `after`)."""
    data = text.encode()
    return data.index(fragment.encode(), after)


def results(doc) -> dict:
    """What the editor asks of a whole document, as plain values."""
    size = len(doc.source.data)
    return {
        "tokens": [(t.span.absolute(), t.kind, t.modifiers) for t in ide.semantic_tokens(doc)],
        "data": tokens.semantic_tokens_data(doc),
        "hints": [(h.offset, h.label, h.tooltip) for h in ide.inlay_hints(doc, 0, size)],
        "symbols": [dump_symbol(s) for s in ide.document_symbols(doc)],
        "folds": ide.folding_ranges(doc),
        "lenses": [(c.span.absolute(), c.title, c.command, c.arguments) for c in ide.code_lenses(doc, ("a", "b"))],
        "diagnostics": [(d.code, d.message, d.span.absolute()) for d in ide.diagnostics(doc)],
        "format": ide.format_document(doc),
        "completion": [(c.label, c.kind, c.detail) for c in ide.completion(doc, size // 2)],
        "definition": [d.span.absolute() for n in range(0, size, 97) for d in ide.definition(doc, n)],
    }


def dump_symbol(s):
    return (s.name, s.kind, s.span.absolute(), s.selection.absolute(), s.detail,
            tuple(dump_symbol(c) for c in s.children))


def encode(doc, found) -> list[int]:
    """LSP's encoding of tokens, the plain way: each cut at LSP's line ends."""
    source = doc.source
    kinds = {k: i for i, k in enumerate(ide.SEMANTIC_TOKEN_KINDS)}
    data, prev_line, prev_char = [], 0, 0
    for t in found:
        a, b = source.position(t.span.start_byte), source.position(t.span.end_byte)
        bits = sum(1 << ide.SEMANTIC_TOKEN_MODIFIERS.index(m) for m in t.modifiers)
        for line in range(a.line, b.line + 1):
            first = a.character if line == a.line else 0
            last = b.character if line == b.line else source.position(source.offset(Position(line, 10**9))).character
            if last > first:
                data += [line - prev_line, first - prev_char if line == prev_line else first, last - first,
                         kinds[t.kind], bits]
                prev_line, prev_char = line, first
    return data


def assert_whole(doc) -> None:
    """Item by item equals the whole document at once."""
    assert ide.semantic_tokens(doc) == tokens.semantic_tokens_of_module(doc)
    assert tokens.semantic_tokens_data(doc) == encode(doc, ide.semantic_tokens(doc))
    assert ide.folding_ranges(doc) == folding.folding_ranges_of_tree(doc)
    with doc.reading():
        checked = doc.checked
        for offset in range(0, len(doc.source.data) + 1, 7):
            assert find.name_at(checked, offset, doc) == find.name_at(checked, offset)


def edits(text: str):
    """Random edits, and edits that keep the file whole (a space, a line break, a
    renamed local) so that most items are reused."""
    quiet = st.builds(
        lambda line, column, what: TextEdit(Position(line, column), Position(line, column), what),
        st.integers(0, text.count("\n")), st.integers(0, 4), st.sampled_from([" ", "\n", "  \n"]))
    return st.one_of(edit_for(text), quiet)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), base=st.sampled_from(BASES), count=st.integers(1, 6))
def test_kept_results_equal_a_fresh_document(data, base, count):
    doc = Document("file:///m.ci", base, path="m.ci")
    results(doc)
    old = []
    for n in range(count):
        doc.apply([data.draw(edits(doc.text))], n + 1)
        if data.draw(st.booleans()):
            results(doc)  # some versions computed, some not
        if data.draw(st.booleans()):
            old.append((doc.snapshot(), doc.text))
        if old and data.draw(st.integers(0, 3)) == 0:  # an older version read in between
            snapshot, text = data.draw(st.sampled_from(old))
            assert results(snapshot) == results(Document("file:///m.ci", text, path="m.ci"))
    fresh = Document("file:///m.ci", doc.text, path="m.ci")
    assert results(doc) == results(fresh)
    assert_whole(doc)
    # Older versions, read after newer ones moved their shared items, are still themselves.
    for snapshot, text in old[-2:]:
        assert snapshot.text == text
        assert results(snapshot) == results(Document("file:///m.ci", text, path="m.ci"))


def test_whole_document_equivalence_on_the_conformance_programs():
    for path in sorted(CONFORMANCE.glob("**/*.ci")):
        assert_whole(Document(path.as_uri(), path.read_text(), path=path.name))


def test_ranges_compute_only_what_they_overlap():
    doc = Document("file:///m.ci", SEVERAL, path="m.ci")
    size = len(doc.source.data)
    everything = ide.semantic_tokens(Document("file:///m.ci", SEVERAL, path="m.ci"))
    start = byte_of(SEVERAL, "kernel d1")
    end = start + 40
    assert ide.semantic_tokens(doc, byte_range=(start, end)) == [
        t for t in everything if t.span.end_byte > start and t.span.start_byte < end]
    assert doc.counters["tokens"] == 1  # kernel d1 only
    in_range = ide.semantic_tokens(doc, byte_range=(start, end))
    assert tokens.semantic_tokens_data(doc, byte_range=(start, end)) == encode(doc, in_range)
    hints = ide.inlay_hints(doc, start, start + 600)
    assert hints and doc.counters["hints"] == 1
    assert hints == [h for h in ide.inlay_hints(Document("file:///m.ci", SEVERAL, path="m.ci"), 0, size)
                     if start <= h.offset <= start + 600]
    assert ide.semantic_tokens(doc, byte_range=(size + 5, -3)) == ide.semantic_tokens(doc)  # clamped, in order


def test_an_unchanged_version_computes_nothing_again():
    doc = Document("file:///m.ci", SEVERAL, path="m.ci")
    first = results(doc)
    counters = dict(doc.counters)
    kept = ide.semantic_tokens(doc)[3], ide.document_symbols(doc)[0], ide.folding_ranges(doc)[0]
    assert results(doc) == first
    assert doc.counters == counters
    again = ide.semantic_tokens(doc)[3], ide.document_symbols(doc)[0], ide.folding_ranges(doc)[0]
    assert all(a is b for a, b in zip(kept, again))
    assert ide.format_document(doc) is ide.format_document(doc)


def test_an_edit_inside_one_item_recomputes_only_that_item():
    doc = Document("file:///m.ci", SEVERAL, path="m.ci")
    results(doc)
    before = dict(doc.counters)
    line = SEVERAL[:SEVERAL.index("kernel d1")].count("\n") + 7  # `I64 c = u[y, x] as I64;` of d1
    assert doc.source.line_text(line + 1).startswith("    I64 c = ")
    doc.apply([TextEdit(Position(line, 11), Position(line, 11), " ")], 2)
    assert results(doc) == results(Document("file:///m.ci", doc.text, path="m.ci"))
    grown = {k: doc.counters[k] - before.get(k, 0) for k in doc.counters}
    assert grown == {"tokens": 1, "hints": 1, "symbols": 1, "folds": 1, "ir": 1, "refusals": 1}
    # A declaration changes: every item that may read it is computed again.
    doc.apply([TextEdit(Position(line, 8), Position(line, 9), "cc")], 3)
    assert results(doc) == results(Document("file:///m.ci", doc.text, path="m.ci"))
    before = dict(doc.counters)
    start = doc.source.position(byte_of(doc.text, "d0"))
    doc.apply([TextEdit(start, Position(start.line, start.character + 2), "k0")], 4)
    assert results(doc) == results(Document("file:///m.ci", doc.text, path="m.ci"))
    assert doc.counters["tokens"] - before["tokens"] >= 4  # both kernels, the function, the entry


def test_a_snapshot_stays_its_version():
    doc = Document("file:///m.ci", SEVERAL, path="m.ci")
    old = doc.snapshot()
    before = results(old)
    at = byte_of(SEVERAL, "kernel d1")
    position = doc.source.position(at)
    doc.apply([TextEdit(position, position, "\n\n// moved\n")], 2)
    new = doc.snapshot()
    assert new is not old and old.version == 0 and new.version == 2
    assert results(new) == results(Document("file:///m.ci", new.text, path="m.ci"))
    assert old.text == SEVERAL and old.tree.root_node.end_byte == len(SEVERAL.encode())
    assert results(old) == before  # its items moved in the new version and back
    hover = ide.hover(old, byte_of(SEVERAL, "kn * lap", at) + 3)
    assert hover is not None and "step 22" in hover.markdown
    assert results(new) == results(Document("file:///m.ci", new.text, path="m.ci"))


def test_a_version_first_read_after_a_newer_one():
    doc = Document("file:///m.ci", SEVERAL, path="m.ci")
    results(doc)
    versions = []
    for n in range(4):
        position = doc.source.position(byte_of(doc.text, "kernel d1"))
        doc.apply([TextEdit(position, position, "\n" if n % 2 else "/* c */\n")], n + 1)
        versions.append(doc.snapshot())
    for snapshot in reversed(versions):  # the newest first, then each older one
        assert results(snapshot) == results(Document("file:///m.ci", snapshot.text, path="m.ci"))
    doc.apply([TextEdit(Position(0, 0), Position(0, 0), " ")], 9)
    assert results(doc) == results(Document("file:///m.ci", doc.text, path="m.ci"))


def test_heavy_requests_on_another_thread_while_edits_arrive():
    text = "".join(KERNEL.replace("diffuse", f"k{n}") + "\n" for n in range(12))
    doc = Document("file:///m.ci", text, path="m.ci")
    expected: dict[int, dict] = {}
    got: dict[int, dict] = {}
    failures: list[BaseException] = []

    def work(snapshot):
        try:
            got[snapshot.version] = results(snapshot)
        except BaseException as error:  # noqa: BLE001 - reported below
            failures.append(error)

    threads = []
    for n in range(1, 9):
        line = 9 + 22 * (n % 12)
        doc.apply([TextEdit(Position(line, 4), Position(line, 4), " " if n % 3 else "/")], n)
        snapshot = doc.snapshot()
        expected[n] = snapshot.text
        thread = threading.Thread(target=work, args=(snapshot,))
        thread.start()
        threads.append(thread)
        ide.diagnostics(doc)  # the server thread goes on with the newest version
        ide.hover(doc, byte_of(doc.text, "kn * lap") + 3)
    for thread in threads:
        thread.join()
    assert not failures
    for version, text in expected.items():
        assert got[version] == results(Document("file:///m.ci", text, path="m.ci"))


def test_a_rename_is_analysed_reusing_the_kept_items_and_leaves_the_version_as_it_was():
    doc = Document("file:///m.ci", SEVERAL, path="m.ci")
    before = results(doc)
    d1 = byte_of(SEVERAL, "kernel d1")
    for fragment, after, new_name in (("lap", d1, "lap2"), ("lap", d1, "c"), ("d0", 0, "d1"), ("d0", 0, "k9"),
                                      ("twice", 0, "t"), ("twice", 0, "thrice")):
        at = byte_of(SEVERAL, fragment, after) + 1
        fresh = Document("file:///m.ci", SEVERAL, path="m.ci")
        assert ide.rename(doc, at, new_name) == ide.rename(fresh, at, new_name)
        assert results(doc) == before
    assert ide.rename(doc, byte_of(SEVERAL, "lap", d1) + 1, "c").error  # `c` is visible there
    assert ide.rename(doc, byte_of(SEVERAL, "d0") + 1, "k9").changes


def test_an_old_version_no_one_holds_goes_before_the_next_parses() -> None:
    # Issue 11's peak memory: the document's shared state holds its active version
    # weakly, so a version no request pins (and its tree) goes when an edit replaces
    # it, before a syntax error's parse from scratch builds the next tree.
    import gc
    import weakref

    doc = Document("file:///several.ci", SEVERAL, 1)
    assert doc.diagnostics is not None  # the version is active: its anchors in place
    pinned = doc.snapshot()
    old = weakref.ref(pinned)
    at = SEVERAL.index(";")
    line = SEVERAL.count("\n", 0, at)
    column = at - (SEVERAL.rfind("\n", 0, at) + 1)
    doc.apply([TextEdit(Position(line, column), Position(line, column + 1), "")], 2)  # a syntax error
    assert old() is pinned  # a request that pinned it still reads it
    assert pinned.version == 1 and pinned.text == SEVERAL
    del pinned
    gc.disable()  # by reference counting alone, not a collection
    try:
        assert old() is None
        doc.apply([TextEdit(Position(line, column), Position(line, column), ";")], 3)
        latest = weakref.ref(doc.snapshot())
        assert doc.diagnostics is not None
        doc.apply([TextEdit(Position(0, 0), Position(0, 0), " ")], 4)
        assert latest() is None
    finally:
        gc.enable()
    assert doc.text == " " + SEVERAL
    fresh = Document("file:///several.ci", " " + SEVERAL, 4)
    assert [d.message for d in doc.diagnostics] == [d.message for d in fresh.diagnostics]


def test_two_versions_are_read_at_once_each_at_its_own_positions():
    # Issue 29: a version's items, spans and results never change after it is made, so
    # a reader of one version needs no lock and no other version moves its spans. The
    # new version inserts lines above kernel `d1`: every span of `d1` and below moves
    # there, and only there.
    doc = Document("file:///m.ci", SEVERAL, path="m.ci")
    old = doc.snapshot()
    assert results(old) == results(Document("file:///m.ci", SEVERAL, path="m.ci"))
    position = doc.source.position(byte_of(SEVERAL, "kernel d1"))
    doc.apply([TextEdit(position, position, "// one\n// two\n\n")], 2)
    new = doc.snapshot()
    expected = {old: results(Document("file:///m.ci", old.text, path="m.ci")),
                new: results(Document("file:///m.ci", new.text, path="m.ci"))}
    assert results(new) == expected[new]
    with new.reading():
        new_items = [item.span.absolute() for item in new.module.items]
    read_new = threading.Event()
    got: dict = {}

    def read(snapshot) -> None:
        with snapshot.reading():
            got[snapshot] = ([item.span.absolute() for item in snapshot.module.items], results(snapshot))
        read_new.set()

    with old.reading():  # a request on the old version, in the middle of its work
        old_items = [item.span.absolute() for item in old.module.items]
        assert old_items != new_items  # d1 and what follows moved
        other = threading.Thread(target=read, args=(new,))
        other.start()
        assert read_new.wait(20), "reading the new version waited for the old version's reader"
        assert [item.span.absolute() for item in old.module.items] == old_items
        assert results(old) == expected[old]
    other.join()
    assert got[new] == (new_items, expected[new])

    # Hovers, diagnostics and symbols of both versions from two threads, interleaved.
    kernel = byte_of(SEVERAL, "kn * lap", byte_of(SEVERAL, "kernel d1")) + 3
    offsets = {old: kernel, new: kernel + len(b"// one\n// two\n\n")}

    def features(snapshot):
        hover = ide.hover(snapshot, offsets[snapshot])
        return (hover.span.absolute() if hover else None, expected[snapshot]["diagnostics"] and
                [(d.code, d.span.absolute()) for d in ide.diagnostics(snapshot)],
                [dump_symbol(s) for s in ide.document_symbols(snapshot)])

    alone = {s: features(s) for s in (old, new)}
    assert alone[old][0] != alone[new][0] and alone[old][2] != alone[new][2]
    turns = threading.Barrier(2, timeout=20)
    mismatches: list = []

    def loop(snapshot) -> None:
        for _ in range(10):
            turns.wait()
            if features(snapshot) != alone[snapshot]:
                mismatches.append(snapshot.version)

    threads = [threading.Thread(target=loop, args=(s,)) for s in (old, new)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not mismatches
