"""Diagnostics that explain, over stdio: the specific reason as the message, the other
half of a conflict as related information, and a link to the code's catalogue entry."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import url2pathname

import pytest
from lsp_support import conformance, open_document, server_fixture, uri_of
from lsprotocol import types as lsp

from cint_ls.server import wire

pytestmark = pytest.mark.asyncio(loop_scope="module")

client = server_fixture()

ROOT = Path(__file__).resolve().parents[2]
CATALOGUE = ROOT / "docs" / "diagnostics.md"


def places(d: lsp.Diagnostic):
    return [((r.location.range.start.line + 1, r.location.range.start.character + 1), r.message)
            for r in d.related_information or []]


async def test_c5010_says_why_and_points_at_both_arguments(client):
    uri = uri_of("explain_c5010")
    (d,) = await open_document(client, uri, conformance("same_c5010"))
    assert d.code == "C5010" and (d.range.start.line, d.range.start.character) == (6, 13)
    assert d.message == ("the same view is passed for `u` (in) and `v` (out); an output shares no element "
                         "with another argument")
    assert places(d) == [((7, 11), "passed for `u` (in)"), ((7, 14), "the same view passed for `v` (out)")]
    assert all(r.location.uri == uri for r in d.related_information)
    assert re.search(r"/docs/diagnostics\.md#L[0-9]+$", d.code_description.href)


async def test_refusal_points_at_the_dispatch_site(client):
    found = await open_document(client, uri_of("explain_ops"), conformance("ops_kernel"))
    first = next(d for d in found if d.code == "C9100")
    assert (first.range.start.line, first.range.start.character) == (0, 7)  # the kernel's name
    # each refused construct, then where the kernel is dispatched
    assert places(first)[0] == ((3, 13), "gpu-cuda refuses `neg`: unary minus")
    assert places(first)[-1] == ((22, 5), "`ops` is dispatched here: a gpu-cuda run stops at this dispatch")


async def test_type_mismatch_points_at_the_declaration(client):
    text = "void go() {\n    I32 t = 1;\n    I64 v = 2;\n    t = v;\n}\ngo();\n"
    (d,) = await open_document(client, uri_of("explain_c3003"), text)
    assert d.code == "C3003" and d.message.startswith("the target is I32 but the value is I64")
    assert places(d) == [((2, 9), "`t` is declared I32 here"), ((3, 9), "`v` is declared I64 here")]


async def test_the_link_is_the_codes_anchor_in_the_catalogue(client):
    (d,) = await open_document(client, uri_of("explain_c2001"), "void go() {\n    I64 x = y;\n}\n")
    href = d.code_description.href
    path, fragment = href.split("#")
    linked = Path(url2pathname(urlparse(path).path))
    # The checkout's catalogue (an editable install), or the copy the wheel carries.
    assert linked == CATALOGUE or linked.parts[-4:] == ("cint_ls", "server", "docs", "diagnostics.md")
    assert linked.read_text() == CATALOGUE.read_text()
    assert '<a id="c2001"></a>C2001' in linked.read_text()


async def test_code_link_opens_the_catalogue_at_its_entry():
    """An editor opens the local catalogue as text, where `#c2001` is no place (VS Code
    opened it at line 1): the link's `L<line>` fragment is the line of the code's row."""
    lines = CATALOGUE.read_text().splitlines()
    for code in ("C1001", "C2001", "C5010", "C9100"):
        href = wire.code_href(code)
        fragment = href.rsplit("#", 1)[1]
        assert re.fullmatch(r"L[0-9]+", fragment), href
        assert f'<a id="{code.lower()}"></a>{code}' in lines[int(fragment[1:]) - 1]


async def test_every_code_of_the_analysis_has_an_anchor():
    """A code the analysis or the syntax can give but the catalogue has no row for
    would be a dead link."""
    codes = set()
    for path in (ROOT / "cint_ls").rglob("*.py"):
        codes |= set(re.findall(r"[\"'](C[0-9]{4})[\"']", path.read_text()))
    assert len(codes) > 40
    text = CATALOGUE.read_text()
    assert sorted(c for c in codes if f'<a id="{c.lower()}"></a>{c}' not in text) == []


async def test_a_fault_code_has_no_link():
    assert wire.code_href("E_OVERFLOW") is None
    assert wire.code_href("C5010").startswith(f"{wire.CATALOGUE_URL}#L")
