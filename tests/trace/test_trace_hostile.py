"""Hostile trace files (issue 28 findings 6 and 7): `cint trace` and the server's
`cint.tracePage` check every line against the whole format (docs/trace.md) and refuse
anything else in one line with its number (the CLI: exit 2; the server: InvalidParams),
never a traceback; reads are bounded; the page's inline JSON is escaped for HTML."""

from __future__ import annotations

import json
import math
import re

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from cint_ls.cli import trace as trace_cli
from cint_ls.cli.main import main
from cint_ls.running.trace import TraceError, read_trace
from cint_ls.running.trace_page import render_page
from cint_ls.server.handlers.commands import trace_page

RUN = {"type": "run", "format": "cint-trace", "version": 1, "executor": "cpu-sir-interp", "outcome": "finished",
       "file": "h.ci"}
ARRAY = {"type": "array", "dispatch": 0, "kernel": "k", "param": "v", "element": "I64", "shape": [1, 1]}
FAULT_MAP = {"type": "fault_map", "dispatch": 0, "kernel": "k", "space": [4], "work_item": 1, "index": [1],
             "order": "ascending", "runs": [["ran", 1], ["canonical", 1], ["not run", 2]]}
NO_INDEX = {key: value for key, value in FAULT_MAP.items() if key != "index"}

# The second line of each file, as text, and what the one line says of it.
HOSTILE_TEXT = {
    "string value": (json.dumps({**ARRAY, "values": ["a"]}), "`values` must be a list of integers"),
    "null value": (json.dumps({**ARRAY, "values": [None]}), "`values` must be a list of integers"),
    "nested value": (json.dumps({**ARRAY, "values": [[1]]}), "`values` must be a list of integers"),
    "4,400 digits": (json.dumps(ARRAY)[:-1] + ', "values": [1' + "0" * 4400 + "]}", "integer of 4,401 digits"),
    "100k nesting": ("[" * 100_000, "nested too deeply"),
    "NaN": (json.dumps({**ARRAY, "values": [0]})[:-1] + ', "x": NaN}', "NaN is not a number"),
    "Infinity": (json.dumps({**RUN, "type": "dispatch", "number": 0, "kernel": "k"})[:-1] + ', "start": Infinity}',
                 "Infinity is not a number"),
    "1e999": (json.dumps({**RUN, "type": "dispatch", "number": 0, "kernel": "k"})[:-1] + ', "end": 1e999}',
              "1e999 is beyond a float's range"),
    "fault_map without index": (json.dumps(NO_INDEX), "a fault_map line needs `index`"),
    "fault_map index a string": (json.dumps({**FAULT_MAP, "index": "1"}), "`index` must be a list of integers"),
    "fault_map state": (json.dumps({**FAULT_MAP, "runs": [["exploded", 4]]}), "[state, count]"),
    "space not a list": (json.dumps({**RUN, "type": "dispatch", "number": 0, "kernel": "k", "space": 7}),
                         "`space` must be a list of integers 0 or more or null"),
    "fault not an object": (json.dumps({**RUN, "fault": "x"}), "`fault` must be a fault or null"),
}


@pytest.mark.parametrize("case", HOSTILE_TEXT)
def test_hostile_trace_lines_are_one_line_exit_2(capsys, tmp_path, case):
    """`cint trace` ended in a traceback on these (finding 7), or drew a blank page
    (NaN, Infinity, a fault_map without `index`)."""
    second, says = HOSTILE_TEXT[case]
    trace = tmp_path / "h.jsonl"
    trace.write_text(json.dumps(RUN) + "\n" + second + "\n")
    code = main(["trace", str(trace)])
    out, err = capsys.readouterr()
    assert code == 2 and out == "" and not (tmp_path / "h.html").exists()
    assert err.startswith(f"cint: error: {trace}:2: ") and err.count("\n") == 1 and says in err, err


# The same as the server gets them: parsed by the JSON-RPC layer into Python values.
HOSTILE_VALUES = {
    "string value": ({**ARRAY, "values": ["a"]}, "`values` must be a list of integers"),
    "null value": ({**ARRAY, "values": [None]}, "`values` must be a list of integers"),
    "nested value": ({**ARRAY, "values": [[1]]}, "`values` must be a list of integers"),
    "4,400 digits": ({**ARRAY, "values": [10 ** 4400]}, "at most 1024 bits"),
    "NaN": ({**RUN, "type": "dispatch", "number": 0, "kernel": "k", "seconds": math.nan}, "a finite number"),
    "Infinity": ({**RUN, "type": "dispatch", "number": 0, "kernel": "k", "start": math.inf}, "a finite number"),
    "fault_map without index": (NO_INDEX, "a fault_map line needs `index`"),
    "not an object": ([1], "not a trace line"),
}


def deep(depth: int):
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


HOSTILE_VALUES["100k nesting"] = ({**ARRAY, "values": deep(100_000)}, "`values` must be a list of integers")
HOSTILE_VALUES["100k nesting in an unknown key"] = ({**ARRAY, "values": [1], "extra": deep(100_000)}, None)


@pytest.mark.parametrize("case", HOSTILE_VALUES)
def test_hostile_trace_lines_are_invalid_params_in_the_server(case):
    """cint.tracePage answered -32603 with the traceback in `data` (finding 7); now
    InvalidParams with the line's number. A key the format does not know is dropped (a
    reader ignores it), however deep."""
    line, says = HOSTILE_VALUES[case]
    if says is None:
        page = trace_page([RUN, line])["html"]
        assert page_data(page)[1]["values"] == [1] and "extra" not in page_data(page)[1]
        return
    with pytest.raises(JsonRpcInvalidParams) as raised:
        trace_page([RUN, line])
    assert "cint.tracePage: the trace:2: " in str(raised.value) and says in str(raised.value), str(raised.value)


def test_trace_from_a_device_or_too_large_is_refused(capsys, tmp_path, monkeypatch):
    """`cint trace /dev/zero` read without limit (3.5 GB in 15 s)."""
    code = main(["trace", "/dev/zero", "-o", str(tmp_path / "z.html")])
    assert (code, capsys.readouterr().err) == (2, "cint: error: '/dev/zero' is a device, not a trace file\n")
    monkeypatch.setattr(trace_cli, "MAX_TRACE_BYTES", 1 << 20)
    big = tmp_path / "big.jsonl"
    big.write_text(json.dumps(RUN) + "\n" + " " * (1 << 20) + "\n")
    code = main(["trace", str(big)])
    assert (code, capsys.readouterr().err) == (2, f"cint: error: '{big}' is larger than 1 MiB, the most a trace file "
                                                  "can be\n")


def test_line_separators_inside_strings_are_text(capsys, tmp_path):
    """Valid JSON with a raw U+2028 or U+0085 inside a string was refused: the lines were
    split with str.splitlines; a trace's lines end at `\\n` only."""
    run = {**RUN, "file": "a\u2028b\x85c\u2029.ci"}
    trace = tmp_path / "sep.jsonl"
    trace.write_text(json.dumps(run, ensure_ascii=False) + "\n", encoding="utf-8")
    assert "\u2028" in trace.read_text(encoding="utf-8")
    assert read_trace(trace.read_text(encoding="utf-8"))[0]["file"] == run["file"]
    assert main(["trace", str(trace)]) == 0
    page = (tmp_path / "sep.html").read_text(encoding="utf-8")
    assert "\u2028" not in page and "\u2029" not in page and "\\u2028" in page


def page_data(page: str):
    """The JSON of the page's data element, as the page's script reads it."""
    found = re.findall(r'<script[^>]*id="trace-data"[^>]*>(.*?)</script>', page, re.S)
    assert len(found) == 1
    return json.loads(found[0])


NAME = "x<!--<script>y</script>z&<style>.ci"


@pytest.mark.parametrize("nonce", [None, "n0nceN0NCEn0nce_-AB"])
def test_trace_page_escapes_a_path_with_script_markup(nonce):
    """The page went blank on a path containing `<!--<script>`: the inline JSON was not
    escaped for HTML (finding 6). Now no `<` `>` `&` in it: one data element, one
    closing tag each for the two scripts, and the JSON parses back to the same lines."""
    lines = read_trace(json.dumps({**RUN, "file": NAME, "executor": "</script><script>alert(1)</script>"}) + "\n")
    page = render_page(lines, f"cint trace: {NAME}", nonce)
    assert page.count("</script>") == 2 and page.count("<script") == 2 and page.count("<style") == 1
    assert page.count("<!--") == 0
    assert page_data(page) == lines
    if nonce is not None:  # the webview's policy: its own elements carry the nonce, nothing else runs
        assert f"script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'" in page and "unsafe-inline" not in page
        assert page.count(f'nonce="{nonce}"') == 3


def test_trace_page_command_takes_the_webviews_nonce():
    page = trace_page([{**RUN, "file": NAME}], {"nonce": "abcdefghABCDEFGH0123"})["html"]
    assert "script-src 'nonce-abcdefghABCDEFGH0123'" in page and page.count('nonce="abcdefghABCDEFGH0123"') == 3
    assert page_data(page)[0]["file"] == NAME
    for bad in ({"nonce": "short"}, {"nonce": 'x" onload="y"0123456789'}, "nonce"):
        with pytest.raises(JsonRpcInvalidParams, match="the third argument"):
            trace_page([RUN], bad)


def test_trace_read_refuses_what_is_not_a_trace_with_line_numbers():
    """Line numbers count every line, blank ones too."""
    with pytest.raises(TraceError, match=r"^t:3: an array's `shape`"):
        read_trace(json.dumps(RUN) + "\n\n" + json.dumps({**ARRAY, "values": [1, 2]}) + "\n", "t")
