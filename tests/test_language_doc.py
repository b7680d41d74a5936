"""Every example of docs/language.md runs as the document says (issue 29, "a reference
written for people who write cint ... every example in it run by the tests"): each
```cint block is a whole program, saved as example.ci and run on cpu-sir-interp (a first
line `// cint run OPTIONS` adds options), and the ```output block right after it is
exactly its stdout then stderr."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cint_ls.cli.main import main

DOC = Path(__file__).resolve().parents[1] / "docs" / "language.md"
EXAMPLE = re.compile(r"```cint\n(?P<program>.*?)```\n\n```output\n(?P<output>.*?)```\n", re.S)


def examples() -> list[tuple[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    found = [(m["program"], m["output"]) for m in EXAMPLE.finditer(text)]
    # A ```cint block without its output would not be checked: refuse it.
    assert len(found) == text.count("```cint\n"), "a ```cint block of docs/language.md has no ```output after it"
    return found


def test_every_language_example_has_its_output():
    assert len(examples()) >= 10


@pytest.mark.parametrize(("program", "output"), examples(), ids=lambda v: v.splitlines()[0][:40] if "\n" in v else v)
def test_language_example_runs_as_documented(tmp_path, monkeypatch, capsys, program, output):
    (tmp_path / "example.ci").write_text(program, encoding="utf-8")
    first = program.splitlines()[0]
    options = first.removeprefix("// cint run ").split() if first.startswith("// cint run ") else []
    monkeypatch.chdir(tmp_path)
    code = main(["run", "--executor", "cpu-sir-interp", *options, "example.ci"])
    out, err = capsys.readouterr()
    assert out + err == output
    assert code == (1 if output.startswith("fault[") or "\nfault[" in output else 0)
