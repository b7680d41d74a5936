"""Untitled buffers and file names that are not identifiers (issue 12 item 5): analysed
under `buffer_path`, they get a module name made from their name, and keep their step
hovers and runs; `cint check` on such a file still reports C2004 (LANGUAGE.md "Lexical")."""

from __future__ import annotations

import pytest
from ide_support import CONFORMANCE, find_offset

from cint_ls import ide
from cint_ls.analysis import check
from cint_ls.ide.document import Document
from cint_ls.running.run import RunRequest, run
from cint_ls.syntax import buffer_path, module_name, parse_source

HEAT = (CONFORMANCE / "heat_e1.ci").read_text()


@pytest.mark.parametrize("name, module", [
    ("untitled:Untitled-1", "Untitled_1"),
    ("/home/me/my heat.ci", "my_heat"),
    ("/home/me/2heat.ci", "_2heat"),
    ("/home/me/not-saved-yet.ci", "not_saved_yet"),
    ("/home/me/heat_e1.ci", "heat_e1"),
    ("<input>", "main"),
])
def test_module_names(name, module):
    assert module_name(buffer_path(name)) == module


def test_a_file_whose_stem_is_a_name_keeps_its_path():
    assert buffer_path("/home/me/heat_e1.ci") == "/home/me/heat_e1.ci"
    assert buffer_path("/home/me/my heat.ci") == "</home/me/my heat.ci>"


@pytest.mark.parametrize("name", ["untitled:Untitled-1", "/home/me/my heat.ci", "/home/me/2heat.ci",
                                  "/home/me/not-saved-yet.ci"])
def test_buffer_keeps_hovers_and_runs(name):
    doc = Document("untitled:Untitled-1", HEAT, path=buffer_path(name))
    assert [d.code for d in ide.diagnostics(doc)] == []
    hover = ide.hover(doc, find_offset(doc, 13, "*"))
    assert hover is not None and "step 22" in hover.markdown
    outcome = run(RunRequest(path=buffer_path(name), text=HEAT))
    assert outcome.result is not None and outcome.result.fault.code == "E_OVERFLOW"
    assert outcome.result.fault.address.kernel == f"{module_name(buffer_path(name))}.diffuse"


def test_check_of_a_file_still_reports_c2004():
    checked = check(parse_source(HEAT, "/home/me/my heat.ci"))
    assert [d.code for d in checked.diagnostics] == ["C2004"]
