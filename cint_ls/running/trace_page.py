"""The trace page: one self-contained HTML file drawn from a trace (running/trace.py).

No network and nothing fetched: the trace's lines are inlined as JSON, the script and
the styles are inline, and everything is drawn on canvases by the page itself. It shows
a timeline per executor run (a lane per role, executor and device; each dispatch a bar,
its figures on hover), a heat map of each recorded 2-D array (viridis, downsampled to at
most 512 pixels a side by block means, the exact value of the element under the pointer
on hover) and a fault map of a faulting dispatch's iteration space (Okabe-Ito colours:
which work-items ran, which did not, which are unknown, the canonical fault ringed).
It is drawn whole under an editor webview's policy (a nonce, no 'unsafe-inline'): no
`style` attribute or inline handler anywhere, styles by the stylesheet's classes or set
through element.style; and it fits any width (the timeline drawn at the page's width).

What a test or another tool can read from the DOM: `#timeline[data-dispatches]` (bars
drawn) `[data-width]`, `.fault-map[data-dispatch][data-canonical-work-item][data-canonical-index]`
with `data-ran`, `data-not-run`, `data-unknown`, `.heat-map[data-shape][data-min]
[data-max][data-block]`, and `body[data-draw-ms]` (the script's time to draw, from its
first line) with `body[data-ready-ms]` (performance.now() when drawn: page load
included).
"""

from __future__ import annotations

import html
import json
import re

from ..exec.faults import JsonObject
from .trace import SAFE

# matplotlib's viridis at eleven stops; the page interpolates 256 colours from them.
VIRIDIS = ["#440154", "#482475", "#414487", "#355f8d", "#2a788e", "#21918c", "#22a884", "#44bf70", "#7ad151",
           "#bddf26", "#fde725"]
# Okabe-Ito: the kernels' colours in turn, the faulting dispatch's, and a fault map's states.
OKABE = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]
FAULT = "#D55E00"
STATES = {"ran": "#56B4E9", "not run": "#F2F2F2", "unknown": "#9E9E9E", "canonical": "#D55E00"}


def _swatch_classes() -> str:
    """The legend's colour boxes as classes of the page's one stylesheet: an editor's
    webview allows only that (by its nonce), never a `style` attribute, so no colour of
    a box may come from the markup (issue 32, point 5)."""
    rules = [f".swatch.kernel-{i} {{ background: {c}; }}" for i, c in enumerate(OKABE)]
    rules.append(f".swatch.fault {{ background: {FAULT}; }}")
    rules += [f".swatch.state-{name.replace(' ', '-')} {{ background: {c}; }}" for name, c in STATES.items()]
    return "\n".join(rules) + "\n"


def _embedded(lines: list[JsonObject]) -> list[JsonObject]:
    """The lines as the page reads them: an array whose values JavaScript's numbers
    cannot all hold exactly carries them as text too (`exact`)."""
    out = []
    for line in lines:
        if line.get("type") == "array" and any(abs(v) >= SAFE for v in line["values"]):
            line = dict(line, exact=[str(v) for v in line["values"]], values=[float(v) for v in line["values"]])
        out.append(line)
    return out


# Inside the inline JSON no character may mean anything to HTML: `<` would let a file's
# name such as `<!--<script>` or `</script>` end or hide the data element (the page
# drawn blank), and the line separators end a line of script. JSON's own escapes are
# the same characters to JSON.parse.
_HTML_SAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                            "\u2028": "\\u2028", "\u2029": "\\u2029"})
NONCE = re.compile(r"[A-Za-z0-9_-]{16,}\Z")  # base64url, as an editor's webview makes it


def embedded_json(value: object) -> str:
    """`value` as JSON that can stand inside an HTML `<script>` element as it is."""
    return json.dumps(value, separators=(",", ":")).translate(_HTML_SAFE)


def policy(nonce: str | None) -> str:
    """The page's Content-Security-Policy: nothing loaded from anywhere; its own inline
    script and style, by `nonce` where one is given (an editor's webview, which shows
    the page as it is), else inline."""
    allowed = "'unsafe-inline'" if nonce is None else f"'nonce-{nonce}'"
    return f"default-src 'none'; script-src {allowed}; style-src {allowed}; img-src data:"


def render_page(lines: list[JsonObject], title: str = "cint trace", nonce: str | None = None) -> str:
    """The page for the lines of a trace (read_trace or records). With `nonce` (16 or
    more base64url characters) its policy lets run only the elements that carry it,
    and each of its own `<script>` and `<style>` does."""
    if nonce is not None and not NONCE.match(nonce):
        raise ValueError("the nonce must be 16 or more base64url characters")
    mark = "" if nonce is None else f' nonce="{nonce}"'
    return (_HEAD.replace("@POLICY@", policy(nonce)).replace("<style>", f"<style{mark}>")
            .replace("@SWATCHES@", _swatch_classes()).replace("@TITLE@", html.escape(title))
            + f'<script{mark} id="trace-data" type="application/json">{embedded_json(_embedded(lines))}</script>\n'
            + f"<script{mark}>\nconst VIRIDIS = " + json.dumps(VIRIDIS) + ";\nconst OKABE = " + json.dumps(OKABE)
            + ";\nconst FAULT = " + json.dumps(FAULT) + ";\nconst STATES = " + json.dumps(STATES) + ";\n" + _SCRIPT
            + "</script>\n</body>\n</html>\n")


_HEAD = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="@POLICY@">
<title>@TITLE@</title>
<style>
body { font: 13px/1.4 system-ui, sans-serif; margin: 16px; color: #222; background: #fff; overflow-wrap: anywhere; }
h1 { font-size: 18px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 18px 0 6px; }
.summary { color: #444; margin-bottom: 8px; white-space: pre-wrap; }
canvas { display: block; border: 1px solid #ccc; image-rendering: pixelated; max-width: calc(100% - 2px); height: auto; }
#timeline canvas { image-rendering: auto; }
#tip { position: fixed; pointer-events: none; background: #111; color: #fff; padding: 6px 8px; border-radius: 4px;
       font: 12px/1.35 ui-monospace, monospace; white-space: pre; display: none; z-index: 10; max-width: 60ch; }
.legend { display: flex; align-items: center; gap: 10px; margin: 6px 0; flex-wrap: wrap; }
.swatch { display: inline-block; width: 14px; height: 14px; border: 1px solid #333; vertical-align: middle; margin-right: 4px; }
@SWATCHES@.scale { display: flex; align-items: center; gap: 6px; flex-wrap: wrap; }
figure { margin: 8px 0 16px; } figcaption { margin-bottom: 4px; font-weight: 600; }
.map { position: relative; display: inline-block; max-width: 100%; vertical-align: top; }
.canonical-mark { position: absolute; pointer-events: none; border: 3px solid #000; border-radius: 50%;
                  box-shadow: 0 0 0 2px #fff; box-sizing: border-box; transform: translate(-50%, -50%); }
.note { color: #8a4b00; }
select { font: inherit; max-width: 100%; }
</style>
</head>
<body>
<div id="tip"></div>
"""

_SCRIPT = r"""
"use strict";
const T0 = performance.now();
const LINES = JSON.parse(document.getElementById("trace-data").textContent);
const tip = document.getElementById("tip");

// An element with attributes. Never a `style` or `on...` attribute: an editor's webview
// (a policy that allows only what carries its nonce) ignores both, so the page styles by the
// stylesheet's classes and sets positions and sizes through element.style (CSSOM).
function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in (attrs || {})) {
    if (k === "style" || /^on/i.test(k)) throw new Error("el: no inline " + k + " (the webview's policy stops it)");
    e.setAttribute(k, attrs[k]);
  }
  if (text !== undefined) e.textContent = text;
  return e;
}
// A count and its noun in agreement, as exec/words.py's counted(): counted(1, "launch") is
// "1 launch" (issue 32: the page said "1 launches").
const PLURALS = {launch: "launches", dispatch: "dispatches"};
function counted(n, noun) {
  return (n === null ? "-" : n) + " " + (n === 1 ? noun : (PLURALS[noun] || noun + "s"));
}
// How the run's executor was chosen (the run report's `chosen`), in words.
const CHOSEN = {named: "the executor asked for", auto: "chosen by auto"};
function chosenWords(chosen) { return CHOSEN[chosen] || chosen; }
function fmtTime(s) {
  if (s === null || s === undefined) return "-";
  if (s >= 1) return s.toFixed(3) + " s";
  if (s >= 1e-3) return (s * 1e3).toFixed(3) + " ms";
  return (s * 1e6).toFixed(1) + " us";
}
function fmtBytes(n) {  // exact below 1000, else powers of 1000 (as `cint run --report`)
  if (typeof n !== "number") return "-";
  if (n < 1000) return n + " B";
  const units = ["KB", "MB", "GB", "TB"];
  let i = -1;
  do { n /= 1000; i++; } while (n >= 1000 && i < units.length - 1);
  return n.toFixed(1) + " " + units[i];
}
function fmtCopies(c) {  // a dispatch's bytes between host and device (gpu-cuda's host in C)
  return "copied: to device " + fmtBytes(c.to_device) + ", from device " + fmtBytes(c.from_device) +
    ", already there " + fmtBytes(c.already_there);
}
function showTip(ev, text) {
  tip.textContent = text; tip.style.display = "block";
  const x = Math.min(ev.clientX + 14, window.innerWidth - tip.offsetWidth - 4);
  tip.style.left = Math.max(0, x) + "px"; tip.style.top = (ev.clientY + 14) + "px";
}
function hideTip() { tip.style.display = "none"; }
function hexRGB(h) { return [parseInt(h.slice(1, 3), 16), parseInt(h.slice(3, 5), 16), parseInt(h.slice(5, 7), 16)]; }
const LUT = (function () {
  const stops = VIRIDIS.map(hexRGB), lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = i / 255 * (stops.length - 1), k = Math.min(Math.floor(t), stops.length - 2), f = t - k;
    for (let c = 0; c < 3; c++) lut[i * 3 + c] = Math.round(stops[k][c] * (1 - f) + stops[k + 1][c] * f);
  }
  return lut;
})();

const runs = LINES.filter(l => l.type === "run");
const dispatches = LINES.filter(l => l.type === "dispatch");
const arrays = LINES.filter(l => l.type === "array");
const faultMaps = LINES.filter(l => l.type === "fault_map");

// ---- summary
const main = runs[0];
document.body.appendChild(el("h1", {}, "cint trace" + (main.file ? ": " + main.file : "")));
for (const r of runs) {
  let s = (r.role === "checked" ? "checked on " : "") + r.executor + " on " + r.device + " (" + chosenWords(r.chosen) + ")" +
    " · outcome " + r.outcome + " · fuel " + (r.fuel === null ? "-" : r.fuel) +
    " · " + counted(r.dispatch_count, "dispatch") + " (" + (r.recorded === null ? 0 : r.recorded) +
    " recorded) · " + fmtTime(r.seconds);
  if (r.fault) s += "\nfault " + r.fault.code + " " + r.fault.operation + " at " + r.fault.line + ":" + r.fault.column +
    (r.fault.work_item !== null ? " (dispatch " + r.fault.dispatch + ", work-item " + r.fault.work_item + ", step " + r.fault.step + ")" : "");
  if (r.error) s += "\nno result: " + r.error;
  document.body.appendChild(el("div", {"class": "summary"}, s));
  if (r.arrays_note) document.body.appendChild(el("div", {"class": "summary note"}, r.arrays_note));
}

// ---- timeline: a lane per (role, executor, device)
(function timeline() {
  const sec = el("section", {id: "timeline"});
  sec.appendChild(el("h2", {}, "Timeline"));
  document.body.appendChild(sec);
  const laneKeys = [], lanes = {};
  for (const d of dispatches) {
    const key = d.role + "\u0000" + d.executor + "\u0000" + d.device;
    if (!(key in lanes)) { lanes[key] = []; laneKeys.push(key); }
    lanes[key].push(d);
  }
  let end = 0;
  for (const d of dispatches) if (d.end !== null && d.end > end) end = d.end;
  if (end <= 0) end = 1e-9;
  const kernels = [];
  for (const d of dispatches) if (kernels.indexOf(d.kernel) < 0) kernels.push(d.kernel);
  const colourIndex = k => kernels.indexOf(k) % OKABE.length;
  // As wide as its section (the window, a half-width editor pane), at least MIN_W (below,
  // the canvas is scaled down to fit: max-width); redrawn when the width changes.
  const MIN_W = 300, laneH = 26, axisH = 22, H = axisH + laneKeys.length * laneH + 4;
  const cv = el("canvas", {role: "img"});
  sec.appendChild(cv);
  const ctx = cv.getContext("2d");
  let W = 0, labelW = 0, plotW = 1, drawn = 0;
  const xOf = t => labelW + t / end * plotW;
  function draw() {
    const width = Math.max(MIN_W, Math.floor(sec.clientWidth) - 2);  // less the canvas's border
    if (width === W) return;
    W = width; labelW = Math.min(230, Math.round(W * 0.38)); plotW = W - labelW - 10;
    const dpr = window.devicePixelRatio || 1;
    cv.width = Math.round(W * dpr); cv.height = Math.round(H * dpr);
    cv.style.width = W + "px";
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#fff"; ctx.fillRect(0, 0, W, H);
    ctx.fillStyle = "#222"; ctx.font = "11px sans-serif"; ctx.textBaseline = "middle";
    const ticks = Math.max(1, Math.min(5, Math.floor(plotW / 90)));  // labels that do not overlap
    for (let i = 0; i <= ticks; i++) {
      const t = end * i / ticks, x = xOf(t);
      ctx.fillStyle = "#ddd"; ctx.fillRect(Math.round(x), axisH - 4, 1, H - axisH + 4);
      ctx.fillStyle = "#222"; ctx.textAlign = i === ticks ? "right" : (i === 0 ? "left" : "center");
      ctx.fillText(fmtTime(t), x, 9);
    }
    drawn = 0;
    const labels = [];
    laneKeys.forEach((key, li) => {
      const y = axisH + li * laneH, rows = lanes[key], parts = key.split("\u0000");
      ctx.fillStyle = "#222"; ctx.textAlign = "left";
      const threads = rows.reduce((m, d) => Math.max(m, d.threads || 0), 0);
      const launches = rows.reduce((m, d) => m + (d.launches || 0), 0);
      const extra = launches ? counted(launches, "launch") : (threads > 1 ? "up to " + threads + " threads" : "1 thread");
      const label = (parts[0] === "checked" ? "checked: " : "") + parts[1] + " · " + parts[2] + " · " + extra;
      ctx.fillText(label, 4, y + laneH / 2, labelW - 8);
      labels.push(label);
      for (const d of rows) {
        if (d.start === null) continue;
        const x0 = xOf(d.start), x1 = xOf(d.end === null ? d.start : d.end);
        ctx.fillStyle = d.fault ? FAULT : OKABE[colourIndex(d.kernel)];
        ctx.fillRect(x0, y + 4, Math.max(1, x1 - x0 - (x1 - x0 > 3 ? 1 : 0)), laneH - 8);
        if (d.fault) { ctx.strokeStyle = "#000"; ctx.lineWidth = 2; ctx.strokeRect(x0 - 1, y + 3, Math.max(3, x1 - x0 + 2), laneH - 6); }
        drawn++;
      }
    });
    // What the canvas says, for a screen reader (and a test): the lanes' labels.
    cv.setAttribute("aria-label", "Timeline: " + labels.join("; "));
    sec.setAttribute("data-dispatches", String(drawn));
    sec.setAttribute("data-width", String(W));
  }
  draw();
  if (window.ResizeObserver) new ResizeObserver(() => draw()).observe(sec);
  else window.addEventListener("resize", draw);
  sec.setAttribute("data-lanes", String(laneKeys.length));
  const legend = el("div", {"class": "legend"});
  for (const k of kernels) { const s = el("span"); s.appendChild(el("span", {"class": "swatch kernel-" + colourIndex(k)})); s.appendChild(document.createTextNode(k)); legend.appendChild(s); }
  if (dispatches.some(d => d.fault)) { const s = el("span"); s.appendChild(el("span", {"class": "swatch fault"})); s.appendChild(document.createTextNode("faulting dispatch")); legend.appendChild(s); }
  sec.appendChild(legend);
  cv.addEventListener("mousemove", ev => {
    const r = cv.getBoundingClientRect(), k = W / r.width;  // drawn W wide, shown r.width wide
    const mx = (ev.clientX - r.left) * k, my = (ev.clientY - r.top) * k;
    const li = Math.floor((my - axisH) / laneH);
    if (li < 0 || li >= laneKeys.length || mx < labelW) return hideTip();
    const rows = lanes[laneKeys[li]], t = (mx - labelW) / plotW * end, slack = 3 / plotW * end;
    let lo = 0, hi = rows.length - 1, best = -1;
    while (lo <= hi) { const m = (lo + hi) >> 1; if (rows[m].start !== null && rows[m].start <= t + slack) { best = m; lo = m + 1; } else hi = m - 1; }
    if (best < 0) return hideTip();
    const d = rows[best];
    if (d.end !== null && d.end + slack < t) return hideTip();
    let s = "dispatch " + d.number + " · " + d.kernel + "\n" + d.executor + " on " + d.device +
      "\nstart " + fmtTime(d.start) + "  end " + fmtTime(d.end) + "  took " + fmtTime(d.seconds) +
      "\nwork-items " + (d.work_items === null ? "- (ended at the entry checks)" : d.work_items) +
      (d.space ? "  over [" + d.space.join(", ") + "]" : "") +
      (d.launches !== null ? "\nlaunches " + d.launches : "\nthreads " + (d.threads === null ? "-" : d.threads)) +
      "\nfuel " + d.fuel + (d.copies ? "\n" + fmtCopies(d.copies) : "");
    if (d.fault) s += "\nfault " + d.fault.code + (d.fault.work_item !== null ? " at work-item " + d.fault.work_item + " [" + (d.fault.index || []).join(", ") + "]" : " (phase " + d.fault.phase + ")");
    showTip(ev, s);
  });
  cv.addEventListener("mouseleave", hideTip);
})();

// ---- a grid on a canvas of at most MAX pixels a side: block = elements per pixel side
const MAX = 512;
function gridCanvas(rows, cols) {
  const block = Math.max(1, Math.ceil(Math.max(rows, cols) / MAX));
  const w = Math.max(1, Math.ceil(cols / block)), h = Math.max(1, Math.ceil(rows / block));
  const zoom = Math.max(1, Math.floor(Math.min(MAX / w, MAX / h, 24)));
  const cv = el("canvas", {width: w, height: h});
  cv.style.width = (w * zoom) + "px";  // height: auto, and at most the page's width (max-width)
  return {cv: cv, block: block, w: w, h: h, zoom: zoom};
}
function cellAt(g, ev, rows, cols) {  // the element under the pointer, at the size the canvas is shown
  const r = g.cv.getBoundingClientRect(), b = g.cv.clientLeft;  // its border
  const fx = (ev.clientX - r.left - b) / (r.width - 2 * b), fy = (ev.clientY - r.top - b) / (r.height - 2 * b);
  if (!(fx >= 0 && fx < 1 && fy >= 0 && fy < 1)) return null;
  return [Math.min(rows - 1, Math.floor(fy * rows)), Math.min(cols - 1, Math.floor(fx * cols))];
}

// ---- heat maps
(function heatMaps() {
  if (!arrays.length) return;
  const sec = el("section", {id: "arrays"});
  sec.appendChild(el("h2", {}, "Arrays after a dispatch"));
  document.body.appendChild(sec);
  const pick = el("select", {id: "array-pick"});
  arrays.forEach((a, i) => pick.appendChild(el("option", {value: String(i)},
    (a.role === "checked" ? "checked: " : "") + "dispatch " + a.dispatch + " · " + a.kernel + " · " + a.param + " [" + a.shape.join(" × ") + "] " + a.element)));
  const label = el("label", {}, "array: "); label.appendChild(pick); sec.appendChild(label);
  const holder = el("div"); sec.appendChild(holder);
  sec.setAttribute("data-array-count", String(arrays.length));
  function draw(i) {
    holder.textContent = "";
    const a = arrays[i], rows = a.shape[0], cols = a.shape[1], v = a.values, n = v.length;
    const fig = el("figure", {"class": "heat-map", "data-dispatch": String(a.dispatch), "data-param": a.param, "data-shape": rows + "x" + cols});
    fig.appendChild(el("figcaption", {}, a.kernel + " · " + a.param + " after dispatch " + a.dispatch));
    holder.appendChild(fig);
    let lo = Infinity, hi = -Infinity;
    for (let k = 0; k < n; k++) { const x = v[k]; if (x < lo) lo = x; if (x > hi) hi = x; }
    if (!n) { lo = 0; hi = 0; }
    const g = gridCanvas(rows, cols), b = g.block, span = hi > lo ? hi - lo : 1;
    fig.setAttribute("data-min", a.exact ? a.exact[v.indexOf(lo)] : String(lo));
    fig.setAttribute("data-max", a.exact ? a.exact[v.indexOf(hi)] : String(hi));
    fig.setAttribute("data-block", String(b));
    const ctx = g.cv.getContext("2d"), img = ctx.createImageData(g.w, g.h), px = img.data;
    const sum = new Float64Array(g.w * g.h), cnt = new Uint32Array(g.w * g.h);
    for (let y = 0; y < rows; y++) {
      const base = y * cols, prow = ((y / b) | 0) * g.w;
      for (let x = 0; x < cols; x++) { const p = prow + ((x / b) | 0); sum[p] += v[base + x]; cnt[p]++; }
    }
    for (let p = 0; p < sum.length; p++) {
      const c = cnt[p] ? Math.max(0, Math.min(255, Math.round((sum[p] / cnt[p] - lo) / span * 255))) : 0;
      px[p * 4] = LUT[c * 3]; px[p * 4 + 1] = LUT[c * 3 + 1]; px[p * 4 + 2] = LUT[c * 3 + 2]; px[p * 4 + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
    fig.appendChild(g.cv);
    const scale = el("div", {"class": "scale"});
    const bar = el("canvas", {width: 256, height: 12}), bctx = bar.getContext("2d");
    for (let i2 = 0; i2 < 256; i2++) { bctx.fillStyle = "rgb(" + LUT[i2 * 3] + "," + LUT[i2 * 3 + 1] + "," + LUT[i2 * 3 + 2] + ")"; bctx.fillRect(i2, 0, 1, 12); }
    scale.appendChild(el("span", {}, fig.getAttribute("data-min")));
    scale.appendChild(bar);
    scale.appendChild(el("span", {}, fig.getAttribute("data-max")));
    scale.appendChild(el("span", {}, "viridis" + (b > 1 ? " · each pixel the mean of " + b + " × " + b + " elements (hover: the exact element)" : "")));
    fig.appendChild(scale);
    g.cv.addEventListener("mousemove", ev => {
      const c = cellAt(g, ev, rows, cols); if (!c) return hideTip();
      const k = c[0] * cols + c[1];
      showTip(ev, a.param + "[" + c[0] + ", " + c[1] + "] = " + (a.exact ? a.exact[k] : v[k]) + "  (" + a.element + ")");
    });
    g.cv.addEventListener("mouseleave", hideTip);
  }
  pick.addEventListener("change", () => draw(+pick.value));
  pick.value = String(arrays.length - 1);
  draw(arrays.length - 1);
})();

// ---- fault maps
(function faults() {
  if (!faultMaps.length) return;
  const sec = el("section", {id: "faults"});
  sec.appendChild(el("h2", {}, "Fault map of the iteration space"));
  document.body.appendChild(sec);
  for (const f of faultMaps) {
    const space = f.space.length ? f.space : [1];
    const cols = space[space.length - 1], rows = space.slice(0, -1).reduce((m, e) => m * e, 1);
    const n = rows * cols, state = new Uint8Array(n), names = ["ran", "not run", "unknown", "canonical"];
    const count = {"ran": 0, "not run": 0, "unknown": 0, "canonical": 0};
    let k = 0;
    for (const run of f.runs) { const s = names.indexOf(run[0]); state.fill(s, k, Math.min(n, k + run[1])); k += run[1]; count[run[0]] += run[1]; }
    const fig = el("figure", {"class": "fault-map", "data-dispatch": String(f.dispatch), "data-kernel": f.kernel,
      "data-canonical-work-item": String(f.work_item), "data-canonical-index": f.index.join(","),
      "data-ran": String(count["ran"]), "data-not-run": String(count["not run"]), "data-unknown": String(count["unknown"]),
      "data-space": space.join("x")});
    fig.appendChild(el("figcaption", {}, (f.role === "checked" ? "checked: " : "") + f.kernel + ", dispatch " + f.dispatch +
      ": over [" + space.join(", ") + "], the canonical fault at work-item " + f.work_item + " [" + f.index.join(", ") + "]"));
    sec.appendChild(fig);
    const g = gridCanvas(rows, cols), b = g.block, ctx = g.cv.getContext("2d");
    const img = ctx.createImageData(g.w, g.h), px = img.data, rank = [1, 0, 2, 3]; // a pixel shows its most telling state
    const best = new Int8Array(g.w * g.h).fill(-1);
    for (let i = 0; i < n; i++) {
      const y = (i / cols) | 0, x = i - y * cols, p = ((y / b) | 0) * g.w + ((x / b) | 0);
      if (best[p] < 0 || rank[state[i]] > rank[best[p]]) best[p] = state[i];
    }
    const rgb = names.map(s => hexRGB(STATES[s]));
    for (let p = 0; p < best.length; p++) { const c = rgb[Math.max(0, best[p])]; px[p * 4] = c[0]; px[p * 4 + 1] = c[1]; px[p * 4 + 2] = c[2]; px[p * 4 + 3] = 255; }
    ctx.putImageData(img, 0, 0);
    const wrap = el("div", {"class": "map"});
    wrap.appendChild(g.cv);
    // the canonical work-item: a ring over its pixel, drawn in an overlay so it stays visible at any size;
    // placed in fractions of the canvas (inside its 1px border), so it stays on the pixel when the
    // canvas is scaled down to fit a narrow pane
    const cy = Math.floor(f.work_item / cols), cx = f.work_item % cols;
    const ring = el("div", {"class": "canonical-mark", "data-work-item": String(f.work_item)});
    const at = (cell, n) => "calc(1px + (100% - 2px) * " + ((((cell / b) | 0) + 0.5) / n) + ")";
    ring.style.left = at(cx, g.w); ring.style.top = at(cy, g.h);
    ring.style.width = "calc((100% - 2px) / " + g.w + " + 6px)"; ring.style.height = "calc((100% - 2px) / " + g.h + " + 6px)";
    wrap.appendChild(ring);
    fig.appendChild(wrap);
    const legend = el("div", {"class": "legend"});
    for (const s of names) {
      if (s !== "canonical" && !count[s]) continue;
      const item = el("span"); item.appendChild(el("span", {"class": "swatch state-" + s.replace(" ", "-")}));
      item.appendChild(document.createTextNode((s === "canonical" ? "faulted first (canonical, ringed)" : s) + ": " + count[s]));
      legend.appendChild(item);
    }
    legend.appendChild(el("span", {}, "Okabe-Ito colours" + (b > 1 ? " · each pixel " + b + " × " + b + " work-items" : "") +
      (f.order === "ascending" ? " · ran in ascending order, stopping at the first fault"
        : f.order === "chunks" ? " · ran in chunks on several threads or machines: all below the canonical work-item ran; which above it ran is not recorded"
        : " · the executor does not record which other work-items ran")));
    fig.appendChild(legend);
    g.cv.addEventListener("mousemove", ev => {
      const c = cellAt(g, ev, rows, cols); if (!c) return hideTip();
      const i = c[0] * cols + c[1], idx = [];
      let rest = i; for (let d = space.length - 1; d >= 0; d--) { idx.unshift(rest % space[d]); rest = Math.floor(rest / space[d]); }
      showTip(ev, "work-item " + i + " [" + idx.join(", ") + "]: " + names[state[i]]);
    });
    g.cv.addEventListener("mouseleave", hideTip);
  }
})();

document.body.setAttribute("data-draw-ms", (performance.now() - T0).toFixed(1));
document.body.setAttribute("data-ready-ms", performance.now().toFixed(1));
document.body.setAttribute("data-drawn", "true");
"""
