"""VS Code: "cint: Show trace" (issue 18), the executor pick list and auto's decision in
the run output (issue 14), and `cint.setTargets`, the refusal's quick fix (issue 12).

The extension's logic that imports nothing of `vscode` (src/tracePage.ts, src/targets.ts,
src/runResult.ts, src/runs.ts, compiled to out/ by `npm run build`) runs in node on real
server answers: the page of a real run's trace made for the webview (a nonce on its
scripts and styles, one strict policy) is drawn by headless Chromium with its timeline
and fault map, and a script without the nonce does not run; `cint.setTargets` writes
what the code action asked into the workspace's settings and refuses malformed
arguments with a message."""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess

import pytest
from conftest import CONFORMANCE
from vscode_support import OUT, VSCODE, built_node, node_json

from cint_ls.server.handlers.commands import trace_page
from cint_ls.server.runs import run_program, run_result_json
from cint_ls.server.settings import Settings


@pytest.fixture(scope="module")
def node() -> str:
    return built_node([OUT / "tracePage.js", OUT / "targets.js"], "node and out/*.js")


def in_node(node: str, script: str, data: object = None) -> object:
    """Runs `script` (which reads `input` and prints one JSON value) with out/ as `out`."""
    return node_json(node, f"const out = (m) => require({json.dumps(str(OUT))} + '/' + m + '.js');", script, data)


def result_of(name: str, executor: str = "cpu-sir-interp") -> dict:
    text = (CONFORMANCE / name).read_text()
    return run_result_json(run_program(executor, name, text, Settings()), f"file:///work/{name}", 1)


def test_the_manifest_contributes_show_trace_and_set_targets():
    manifest = json.loads((VSCODE / "package.json").read_text())["contributes"]
    commands = {c["command"]: c["title"] for c in manifest["commands"]}
    assert commands["cint.showTrace"] == "Show trace" and "cint.setTargets" in commands
    palette = {m["command"]: m.get("when") for m in manifest["menus"]["commandPalette"]}
    assert palette["cint.setTargets"] == "false"  # a code action's command, not a palette entry
    source = (VSCODE / "src" / "extension.ts").read_text()
    assert "registerTrace(context" in source and "registerCommand(SET_TARGETS, runSetTargets)" in source
    assert "cint: { setTargets: true, debug: true }" in source  # the capabilities: the fix, the Debug lens


def test_set_targets_writes_the_workspace_setting_and_refuses_bad_arguments(node):
    script = """
const { setTargets, parseSetTargets } = out('targets');
(async () => {
  const calls = [];
  const configuration = (uri) => ({ update: async (section, value, scope) => { calls.push([uri, section, value, scope]); } });
  const written = await setTargets(input.good, configuration, true);
  await setTargets(["untitled:Untitled-1", ["cpu-c17", "cpu-c17"]], configuration, false);
  const errors = [];
  for (const args of input.bad) {
    try { await setTargets(args, configuration, true); errors.push(null); } catch (e) { errors.push(e.message); }
  }
  console.log(JSON.stringify({ written, calls, errors, parsed: parseSetTargets(input.good) }));
})().catch((e) => { console.error(e); process.exit(1); });
"""
    uri = "file:///work/ops_kernel.ci"
    bad = [[], [uri], [uri, []], [uri, "cpu-c17"], [uri, ["cpu-c17", "tpu"]], [42, ["cpu-c17"]],
           ["not a uri", ["cpu-c17"]], [uri, ["cpu-c17"], "extra"], [uri, [None]]]
    got = in_node(node, script, {"good": [uri, ["cpu-c17", "gpu-cuda"]], "bad": bad})
    assert got["written"] == ["cpu-c17", "gpu-cuda"]
    assert got["calls"] == [[uri, "targets", ["cpu-c17", "gpu-cuda"], "workspace"],
                            ["untitled:Untitled-1", "targets", ["cpu-c17"], "global"]]  # no folder: the user's
    errors = got["errors"]
    assert None not in errors and len(errors) == len(bad)  # every malformed call refused, nothing written
    assert errors[0] == "cint.setTargets: expected [uri, targets], got 0 arguments"
    assert errors[2] == errors[3] == "cint.setTargets: the second argument must be a non-empty list of executor names"
    assert errors[4].startswith('cint.setTargets: unknown executors ["tpu"]')
    assert errors[5] == errors[6] == "cint.setTargets: the first argument must be a document URI"
    assert errors[8].startswith("cint.setTargets: unknown executors [null]")
    assert len(got["calls"]) == 2


def test_the_run_output_shows_auto_decision_and_the_pick_list_offers_auto_first(node):
    chosen = result_of("heat_tour.ci", "auto")
    named = result_of("heat_tour.ci")
    script = """
const { runResultLines, autoDecision } = out('runResult');
const { EXECUTOR_CHOICES, runTitle } = out('runs');
const lines = (r) => runResultLines(r.output ?? '', r.report, r.error, r.notes ?? [], autoDecision(r.runReport));
console.log(JSON.stringify({ auto: lines(input[0]), named: lines(input[1]), choices: EXECUTOR_CHOICES,
                             title: runTitle('cint.run', ['u']), none: autoDecision(undefined) ?? null }));
"""
    got = in_node(node, script, [chosen, named])
    decision = chosen["runReport"]["decision"]
    assert decision.startswith(f"auto chose {chosen['executor']}: ") and decision in got["auto"]
    assert got["auto"].index(decision) > got["auto"].index(chosen["output"].splitlines()[-1])
    assert not [line for line in got["named"] if "auto" in line]  # a named executor: no decision line
    assert got["choices"][0] == "auto" and set(got["choices"][1:]) == {"cpu-sir-interp", "cpu-c17", "gpu-cuda"}
    assert got["title"] == "cint: run on auto" and got["none"] is None


def test_show_trace_arguments_and_bad_results(node):
    result = result_of("heat_e1.ci")
    script = """
const t = out('tracePage');
const msg = (v) => v instanceof Error ? v.message : v;
console.log(JSON.stringify({
  good: msg(t.tracePageArguments(input)), title: t.traceTitle(input.uri),
  none: msg(t.tracePageArguments(undefined)), nouri: msg(t.tracePageArguments({ trace: input.trace })),
  notrace: msg(t.tracePageArguments({ uri: input.uri, trace: [] })),
  badtrace: msg(t.tracePageArguments({ uri: input.uri, trace: [1, 2] })),
  nopage: msg(t.pageHtml({ html: 42 })), noanswer: msg(t.pageHtml(null)),
  nonce: (() => { try { t.webviewHtml('<html></html>', 'short'); return null; } catch (e) { return e.message; } })(),
  withnonce: msg(t.tracePageArguments(input, 'N'.repeat(16))),
  oldserver: msg(t.pageHtml({ html: '<html><script>x</script></html>' }, 'N'.repeat(16))),
}));
"""
    got = in_node(node, script, result)
    assert got["good"] == [result["uri"], result["trace"]] and got["title"] == "cint trace: heat_e1.ci"
    assert got["none"] == "cint: Show trace needs a run result (run the file first)"
    assert got["nouri"] == "cint: the run result has no document URI"
    assert got["notrace"].startswith("cint: the run result has no trace") and got["badtrace"] == got["notrace"]
    assert got["nopage"] == got["noanswer"] == "cint: the server's cint.tracePage gave no page"
    assert got["nonce"].startswith("webviewHtml: the nonce")
    assert got["withnonce"] == [result["uri"], result["trace"], {"nonce": "N" * 16}]
    assert got["oldserver"].startswith("cint: the server's page does not carry the webview's nonce")


def test_webview_changes_nothing_of_the_page_but_its_policy(node):
    """Issue 28 finding 6: the webview put its nonce on every `<script`/`<style`
    substring, those of the trace's own text too (a file named `<!--<script>`), which
    broke the page's JSON.parse. The server renders the page with the nonce; the webview
    replaces the policy in the head and nothing else."""
    result = result_of("heat_e1.ci")
    trace = [dict(result["trace"][0], file="x<!--<script>y</script><style>.ci"), *result["trace"][1:]]
    nonce = secrets.token_urlsafe(24)
    page = trace_page(trace, {"nonce": nonce})["html"]
    page = page.replace("</body>", "<p>a <script and a <style in text</p></body>")  # text the webview must leave
    got = in_node(node, "const t = out('tracePage'); console.log(JSON.stringify(t.webviewHtml(input[0], input[1])));",
                  [page, nonce])
    head, body = got.split("</head>", 1)
    assert body == page.split("</head>", 1)[1]
    assert head.count("Content-Security-Policy") == 1 and f"'nonce-{nonce}'" in head


def find_chromium() -> str | None:
    for name in (os.environ.get("CINT_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def test_the_webview_page_draws_under_its_strict_policy(node, tmp_path):
    """The page the webview gets (the server's cint.tracePage of a real run, through
    webviewHtml) in headless Chromium: drawn (timeline, fault map of heat_e1 marking
    work-item 20); one policy, with a nonce and no 'unsafe-inline'; and a script added
    without the nonce does not run."""
    chromium = find_chromium()
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("chromium not found in CI")
        pytest.skip("headless Chromium not found (apt-get install chromium, or CINT_CHROMIUM)")
    result = result_of("heat_e1.ci")
    # a file name with markup in it (issue 28 finding 6): the page still draws
    trace = [dict(result["trace"][0], file="x<!--<script>y</script>.ci"), *result["trace"][1:]]
    script = """
const t = out('tracePage');
const nonce = t.makeNonce((n) => require('crypto').randomBytes(n));
console.log(JSON.stringify({ nonce }));
"""
    nonce = in_node(node, script, None)["nonce"]
    page = trace_page(trace, {"nonce": nonce})["html"]
    got = {"nonce": nonce, "html": in_node(node, "const t = out('tracePage'); "
                                           "console.log(JSON.stringify(t.webviewHtml(input[0], input[1])));",
                                           [page, nonce])}
    html, nonce = got["html"], got["nonce"]
    policies = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', html)
    assert policies == [f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; img-src data:"]
    assert "unsafe-inline" not in html.split("<body", 1)[0]
    tags = re.findall(r"<(?:script|style)\b[^>]*>", html)
    assert tags and all(f'nonce="{nonce}"' in tag for tag in tags)
    # A script without the nonce, as an injected one would be: the policy must stop it.
    html = html.replace("</body>", "<script>document.body.setAttribute('data-injected', 'ran');</script></body>")
    file = tmp_path / "webview.html"
    file.write_text(html)
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                           "--no-first-run", "--virtual-time-budget=20000", "--dump-dom", file.as_uri()],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert re.search(r'<body[^>]*data-draw-ms="[\d.]+"', dom), dom[:2000]  # the page's own script ran
    assert re.search(r'<section id="timeline"[^>]*data-dispatches="1"', dom)
    assert re.search(r'<figure class="fault-map"[^>]*data-canonical-work-item="20"', dom)
    assert not re.search(r"<body[^>]*data-injected", dom) and "data-injected=\"ran\"" not in dom
