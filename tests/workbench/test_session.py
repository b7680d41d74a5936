"""The workbench's session engine (issue 31): each kind of input, each command, a fault in
the middle of a session and the state after it, and bad input answered with a message
while the session and its variables stay."""

from __future__ import annotations

from pathlib import Path

import pytest

from cint_ls.workbench.session import Session, complete, inspect

HERE = Path(__file__).resolve().parent
HEAT_E1 = HERE.parent / "conformance" / "heat_e1.ci"
SCALE = "kernel scale[n](in I64[n] a, I64 k, out I64[n] b) over [i: n] { b[i] = a[i] * k; }"


def answers(session: Session, *inputs: str) -> list[str]:
    return [session.enter(text).text for text in inputs]


def test_declarations_variables_statements_and_expressions() -> None:
    s = Session()
    assert answers(s, SCALE) == ["scale   revision session@r1\n"]
    assert answers(s, "export I64 twice(I64 x) { return 2 * x; }") == \
        ["twice : (I64) -> I64   revision session@r2\n"]
    assert answers(s, "I64[3] a = [1, 2, 3];", "I64[3] b;", "I64 k = 5;") == [
        "a : I64[3]   3 elements   host\n  [0] = 1\n  [1] = 2\n  [2] = 3\n",
        "b : I64[3]   3 elements   host\n  [0] = 0\n  [1] = 0\n  [2] = 0\n", "k = 5 : I64\n"]
    assert answers(s, "scale(a, k, b);", "b[2]", "twice(b[1]) + k", '"{b[0]}!\\n";') == \
        ["", "= 15 : I64\n", "= 25 : I64\n", "5!\n"]
    assert s.prompt == "ci[10]> "
    # A redefinition replaces the declaration and bumps the revision.
    assert answers(s, "export I64 twice(I64 x) { return 3 * x; }", "twice(1)") == \
        ["twice : (I64) -> I64   revision session@r3\n", "= 3 : I64\n"]


def test_a_fault_leaves_what_the_host_observes_and_earlier_statements_of_the_input() -> None:
    s = Session()
    answers(s, SCALE, "I64[2] a = [1, 9223372036854775807];", "I64[2] b = [7, 7];", "I64 n = 0;")
    report = s.enter("n = 4; scale(a, 2, b);")
    assert report.error and "fault[E_OVERFLOW]" in report.text and "--> entry 1:1:77" in report.text
    assert "address: session.scale, dispatch 0, phase 1, work-item 1, step 2" in report.text
    assert answers(s, "b[0]", "n") == ["= 7 : I64\n", "= 4 : I64\n"]  # nothing published; n = 4 stays


def test_the_heat_session_of_the_issue() -> None:
    """Load heat_e1.ci, run its kernel from the session, see the fault, inspect the
    arrays, change kn, run again."""
    s = Session()
    assert answers(s, f":load {HEAT_E1}")[0].startswith("loaded heat_e1 (")
    answers(s, "I32[8, 8] a;", "I32[8, 8] b;", "a[3, 4] = 1000;", "I64 total = 0;", "I64 kn = 2305843009213693952;")
    fault = s.enter("heat_e1.diffuse(a, kn, 9223372036854775807, b, total);")
    assert "fault[E_OVERFLOW]" in fault.text and "--> heat_e1.ci:13:33" in fault.text
    assert "address: heat_e1.diffuse, dispatch 0, phase 1, work-item 20, step 22" in fault.text
    assert answers(s, "a[3, 4]", "b[2, 4]") == ["= 1000 : I32\n", "= 0 : I32\n"]
    assert answers(s, "kn = 1;", "heat_e1.diffuse(a, kn, 8, b, total);", "b[2, 4]", "total") == \
        ["", "", "= 125 : I32\n", "= 1000 : I64\n"]


def test_commands() -> None:
    s = Session()
    assert answers(s, ":fuel 100", ":fuel none") == ["fuel: 100 units per entry\n", "fuel: no budget\n"]
    answers(s, SCALE, "I64 k = 2;")
    assert answers(s, ":type k * 2 > 3", ":steps scale") == [
        "k * 2 > 3 : Bool\n",
        "steps of scale: 3 counted operations, in evaluation order\n"
        "  #0           entry 1:1:66     store.checked\n  #1           entry 1:1:73     index.checked\n"
        "  #2           entry 1:1:77     mul.checked.i64\n"]  # a store's place counts before its value
    assert ":load FILE" in s.enter(":help").text and s.enter(":vars").text == "k = 2 : I64\n"
    assert s.enter(":quit").quit
    number = s.number
    assert answers(s, ":reset", "k") [0] == "the session is empty\n"
    assert "unknown name `k`" in s.enter("k").text
    assert s.number == number  # a command takes no number; the input after the reset does not either (an error)


@pytest.mark.parametrize("text, said", [
    ("I64 x =", "error"),
    ("kernel k[n](in I64[n] a", "error"),
    ("I64 x = 1; kernel k[n](in I64[n] a) over [i: n] { }", "an input of their own"),
    ("nope + 1", "unknown name `nope`"),
    (":frobnicate", "unknown command :frobnicate"),
    (":fuel lots", ":fuel N"),
    (":load /no/such/file.ci", "cannot read /no/such/file.ci"),
    (":steps nothing", "no kernel nothing"),
])
def test_bad_input_is_a_message_and_the_session_stays(text: str, said: str) -> None:
    s = Session()
    answers(s, "I64 keep = 41;")
    answer = s.enter(text)
    assert answer.error and said in answer.text, answer.text
    assert answers(s, "keep + 1") == ["= 42 : I64\n"]


@pytest.mark.parametrize("text", ["I64[2] b; b[0]", "1 +", "(2 * 3"])
def test_a_broken_expression_is_one_diagnostic(text: str) -> None:
    """The checker's diagnostics hold the syntax ones: each error once (both lists were
    read, so each was shown twice)."""
    answer = Session().enter(text)
    assert answer.error and answer.text.count("error[") == 1, answer.text


def test_load_of_a_binary_file(tmp_path: Path) -> None:
    binary = tmp_path / "blob.ci"
    binary.write_bytes(b"\x00\xff\xfe kernel")
    answer = Session().enter(f":load {binary}")
    assert answer.error and "not UTF-8 text" in answer.text


def test_completion_and_inspection_are_the_language_servers() -> None:
    s = Session()
    answers(s, SCALE, "I64 total = 3;")
    labels = [i.label for i in complete(s, "tot", 3)]
    assert "total" in labels
    assert "scale" in [i.label for i in complete(s, "sc", 2)]
    shown = inspect(s, "scale", 2)
    assert shown is not None and "kernel" in shown and "scale" in shown


def test_a_variable_declared_again_replaces_the_sessions() -> None:
    s = Session()
    assert answers(s, "I64 total = 3;", "I64 total = 5;", "total") == \
        ["total = 3 : I64\n", "total = 5 : I64\n", "= 5 : I64\n"]
    assert answers(s, "I64[2] a = [1, 2];", "Bool a = true;", "a") == \
        ["a : I64[2]   2 elements   host\n  [0] = 1\n  [1] = 2\n", "a = true : Bool\n", "= true : Bool\n"]


def test_a_diagnostic_points_into_the_input_after_a_loaded_file() -> None:
    s = Session()
    s.enter(f":load {HEAT_E1}")
    answer = s.enter("  nope + 1")
    assert "--> entry 2:1:3" in answer.text and " 1 |   nope + 1" in answer.text, answer.text


def test_a_loaded_modules_names_are_not_hidden(tmp_path: Path) -> None:
    """One program holds every module's names bare: a session declaration of a loaded
    function's name, or a second module declaring one already there, is refused; loading
    a module again replaces its own."""
    s = Session()
    assert not s.enter(f":load {HEAT_E1}").error
    clash = s.enter("export I64 step() { return 1; }")
    assert clash.error and "`step` is heat_e1.step" in clash.text
    other = tmp_path / "other.ci"
    other.write_text("void step() { }\n")
    assert "declared by module heat_e1" in s.enter(f":load {other}").text
    assert not s.enter(f":load {HEAT_E1}").error
    s.enter("export I64 mine() { return 1; }")
    mine = tmp_path / "mine_too.ci"
    mine.write_text("export I64 mine() { return 2; }\n")
    assert "declared by the session" in s.enter(f":load {mine}").text


def test_an_input_takes_only_the_declarations_it_names(tmp_path: Path) -> None:
    """A session that loaded a file of a thousand functions checks only what an input can
    reach by name: the answers are those of the whole program (a call across two of
    them, a kernel), and the cost does not grow with the file (benchmarks/workbench.py)."""
    many = tmp_path / "many.ci"
    many.write_text("".join(f"export I64 f{i}(I64 v) {{ return v + {i}; }}\n" for i in range(1000))
                    + "export I64 both(I64 v) { return f3(v) + f999(v); }\n"
                    + "kernel twice[n](in I64[n] a, out I64[n] b) over [i: n] { b[i] = f1(a[i]) * 2; }\n")
    s = Session()
    assert not s.enter(f":load {many}").error
    assert answers(s, "both(1)", "I64[2] a = [1, 2];", "I64[2] b;", "twice(a, b);", "b[1]") == \
        ["= 1004 : I64\n", "a : I64[2]   2 elements   host\n  [0] = 1\n  [1] = 2\n",
         "b : I64[2]   2 elements   host\n  [0] = 0\n  [1] = 0\n", "", "= 6 : I64\n"]
    assert "unknown name `f1000`" in s.enter("f1000(1)").text


def test_a_fault_in_an_expression_points_into_the_expression() -> None:
    """An expression runs inside the print that shows it; its fault's position and frame
    are the input's own, not the print's."""
    s = Session()
    answer = s.enter("  1 / 0")
    assert "--> entry 1:1:5" in answer.text and " 1 |   1 / 0\n" in answer.text, answer.text
    s.enter("export I64 f(I64 x) { return 10 / x; }")
    answer = s.enter("f(0)")
    assert "stack: session.f at entry 3:1:1" in answer.text, answer.text


def test_a_defect_of_ours_is_a_message_and_the_session_stays(monkeypatch: pytest.MonkeyPatch) -> None:
    """An exception inside the engine (a defect) answers `internal error` and keeps the
    session's variables: it does not end the workbench with a traceback."""
    s = Session()
    answers(s, "I64 keep = 41;")

    def broken(_self: Session, _text: str) -> None:
        raise ValueError("a defect")

    with monkeypatch.context() as m:
        m.setattr(Session, "_cint", broken)
        answer = s.enter("keep + 1")
    assert answer.error and answer.text.startswith("internal error: ValueError: a defect"), answer.text
    assert answers(s, "keep + 1") == ["= 42 : I64\n"]
