"""The trace page under an editor's webview policy, read as text (issue 32, point 5).

A webview shows the page under `style-src 'nonce-N'` with no 'unsafe-inline': a `style`
attribute, in the markup or set by the script (setAttribute, innerHTML), is ignored, and
so is an inline event handler. The legend's colour boxes and the fault map's ring were
`style` attributes set by the page's script: blank boxes and no ring in VS Code. The
page must carry every style in its one nonce'd `<style>` element (classes) or set it
through element.style (CSSOM, which a policy does not stop). The pixels are checked in
test_trace_page_chromium.py; this checks the text, without a browser."""

from __future__ import annotations

import re

from cint_ls.running import trace_page
from cint_ls.running.trace_page import render_page

NONCE = "n0nceN0NCEn0nce_-AB"
RUN = {"type": "run", "format": "cint-trace", "version": 1, "role": "run", "file": "t.ci", "executor": "cpu-sir-interp",
       "device": "cpu", "chosen": "named", "decision": "", "outcome": "E_OVERFLOW", "error": None, "seconds": 0.01,
       "fuel": 65, "dispatch_count": 1, "recorded": 1,
       "fault": {"code": "E_OVERFLOW", "operation": "mul.checked.i64", "kernel": "t.k", "dispatch": 0, "phase": 1,
                 "work_item": 20, "step": 22, "line": 13, "column": 33}, "arrays_note": None}
DISPATCH = {"type": "dispatch", "role": "run", "number": 0, "kernel": "t.k", "executor": "cpu-sir-interp", "device": "cpu",
            "start": 0.0, "end": 0.003, "seconds": 0.003, "work_items": 64, "space": [8, 8], "threads": 1,
            "launches": None, "copies": None, "fuel": 64,
            "fault": {"code": "E_OVERFLOW", "phase": 1, "work_item": 20, "index": [2, 4]}}
FAULT_MAP = {"type": "fault_map", "role": "run", "dispatch": 0, "kernel": "t.k", "space": [8, 8], "work_item": 20,
             "index": [2, 4], "order": "ascending", "runs": [["ran", 20], ["canonical", 1], ["not run", 43]]}
ARRAY = {"type": "array", "role": "run", "dispatch": 0, "kernel": "t.k", "param": "v", "element": "I64",
         "shape": [2, 2], "values": [1, 2, 3, 4]}

# What a strict policy ignores, wherever in the page it stands: a `style` attribute in
# markup or in a string the script builds markup from, one set as an attribute by the
# script (setAttribute("style", ...), el(..., {style: ...})), an inline event handler,
# and markup made from strings (innerHTML, outerHTML, insertAdjacentHTML, document.write).
INLINE = {
    "style attribute in markup or a string": re.compile(r"""\bstyle\s*=\s*["'\\]"""),
    "style set as an attribute": re.compile(r"""setAttribute\(\s*["']style["']|[{,]\s*["']?style["']?\s*:"""),
    "inline event handler": re.compile(r"""<[^>]*\son[a-z]+\s*=|["']on[a-z]+\s*=|setAttribute\(\s*["']on[a-z]+"""),
    "markup from strings": re.compile(r"\b(?:innerHTML|outerHTML|insertAdjacentHTML|document\.write)\b"),
}


def page() -> str:
    return render_page([RUN, DISPATCH, FAULT_MAP, ARRAY], "cint trace: t.ci", NONCE)


def test_trace_page_has_no_inline_style_or_handler_for_the_webviews_policy():
    """The legend's swatches (`style: "background:" + ...`) and the ring (`style:
    "position:absolute;..."`) were style attributes the webview's policy dropped."""
    text = page()
    assert "unsafe-inline" not in text and f"style-src 'nonce-{NONCE}'" in text
    found = {name: pattern.findall(text) for name, pattern in INLINE.items()}
    assert not any(found.values()), found


def test_trace_page_colours_every_swatch_by_a_class_of_its_stylesheet():
    """Each colour a legend shows is a rule of the page's one `<style>` (which carries the
    nonce), so the webview draws it: the kernels' Okabe-Ito colours, the faulting
    dispatch's and the fault map's four states; the script names those classes."""
    OKABE, FAULT, STATES = trace_page.OKABE, trace_page.FAULT, trace_page.STATES
    text = page()
    (sheet,) = re.findall(rf'<style nonce="{NONCE}">(.*?)</style>', text, re.S)
    rules = dict(re.findall(r"\.swatch\.([\w-]+) \{ background: (#[0-9A-Fa-f]{6}); \}", sheet))
    assert [rules[f"kernel-{i}"] for i in range(len(OKABE))] == OKABE
    assert rules["fault"] == FAULT
    assert {name: rules["state-" + name.replace(" ", "-")] for name in STATES} == STATES
    script = text.rsplit("<script", 1)[1]
    assert '"swatch kernel-" + colourIndex(k)' in script and '"swatch fault"' in script
    assert '"swatch state-" + s.replace(" ", "-")' in script
    assert ".canonical-mark {" in sheet and "border: 3px solid #000" in sheet  # the ring, by class


def test_trace_page_timeline_fits_its_width():
    """The timeline was at least 600 px wide (a half-width editor pane scrolled); now
    the width of its section, and every canvas at most the page's width."""
    text = page()
    assert "Math.max(600" not in text
    assert re.search(r"canvas \{[^}]*max-width: calc\(100% - 2px\); height: auto;", text)
    assert "new ResizeObserver" in text
