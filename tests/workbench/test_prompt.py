"""The workbench's prompt (prompt_toolkit) driven through its pipe input, as a person at a
terminal types: a multi-line kernel that goes on while its brace is open, history, Ctrl-C
dropping a half-typed input, Ctrl-D leaving (issue 31)."""

from __future__ import annotations

from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from cint_ls.workbench.prompt import highlighted, history_path, interactive
from cint_ls.workbench.session import Session


def typed(keys: str, capsys: pytest.CaptureFixture[str]) -> tuple[Session, str]:
    session = Session()
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=DummyOutput()):
        pipe.send_text(keys)
        assert interactive(session) == 0
    return session, capsys.readouterr().out


def test_a_kernel_over_three_lines_then_a_run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    keys = ("kernel twice[n](in I64[n] a, out I64[n] b) over [i: n] {\r"
            "b[i] = a[i] * 2;\r"
            "}\r"
            "I64[2] a = [3, 4];\rI64[2] b;\rtwice(a, b);\rb[1]\r"
            "\x04")  # Ctrl-D
    session, out = typed(keys, capsys)
    assert "twice   revision session@r1" in out and "= 8 : I64" in out
    assert session.number == 6
    assert history_path() == tmp_path / "cint-ls" / "workbench_history"
    assert "b[i] = a[i] * 2;" in history_path().read_text()  # kept for the next session


def test_ctrl_c_drops_the_half_typed_input(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    session, out = typed("I64 x = 1\x03I64 y = 2;\r\x04", capsys)
    assert "y = 2 : I64" in out and "x" not in session.variables


def test_the_grammars_colours() -> None:
    (line,) = highlighted("kernel k[n](in I64[n] a) over [i: n] { }")
    styles = dict((text, style) for style, text in line)
    assert styles["kernel"] == styles["over"] == "ansimagenta" and styles["I64"] == "ansicyan"
