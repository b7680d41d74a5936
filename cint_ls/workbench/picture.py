"""A 2-D array as the trace page's heat map, for a notebook (issue 31): viridis, at most
512 pixels a side by block means (running/trace_page.py draws the same), as one inline
PNG with its shape and range: HTML that fetches nothing and runs no script."""

from __future__ import annotations

import base64
import html
import struct
import zlib

from ..exec.views import View
from ..running.trace_page import VIRIDIS

MAX_SIDE = 512
SCALE_UP = 8  # a small array's element is drawn as a square of this many pixels (at most)


def _palette() -> list[tuple[int, int, int]]:
    stops = [tuple(int(c[i:i + 2], 16) for i in (1, 3, 5)) for c in VIRIDIS]
    out = []
    for k in range(256):
        t = k / 255 * (len(stops) - 1)
        i = min(int(t), len(stops) - 2)
        f = t - i
        out.append(tuple(round(a + (b - a) * f) for a, b in zip(stops[i], stops[i + 1])))
    return out  # type: ignore[return-value]


def png(width: int, height: int, rows: list[bytes]) -> bytes:
    """An RGB PNG of `rows` (each width * 3 bytes)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    raw = b"".join(b"\x00" + row for row in rows)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def heat_map_html(name: str, view: View) -> str:
    """`name`'s heat map: an <img> of the array (block means where it is larger than
    MAX_SIDE), with its shape and its least and greatest elements."""
    height, width = view.extents
    values = [[float(view.read([y, x])) for x in range(width)] for y in range(height)]
    block = max(1, -(-max(height, width) // MAX_SIDE))
    h, w = -(-height // block), -(-width // block)
    means = [[0.0] * w for _ in range(h)]
    for by in range(h):
        for bx in range(w):
            cells = [values[y][x] for y in range(by * block, min(height, (by + 1) * block))
                     for x in range(bx * block, min(width, (bx + 1) * block))]
            means[by][bx] = sum(cells) / len(cells)
    low = min(min(r) for r in values) if values and values[0] else 0.0
    high = max(max(r) for r in values) if values and values[0] else 0.0
    colours = _palette()
    up = max(1, min(SCALE_UP, MAX_SIDE // max(h, w, 1)))
    rows = []
    for row in means:
        line = b"".join(bytes(colours[0 if high == low else round((v - low) / (high - low) * 255)]) * up for v in row)
        rows += [line] * up
    data = base64.b64encode(png(w * up, h * up, rows)).decode("ascii")
    shown = f"{name} : {height} × {width}, min {low:g}, max {high:g}" + \
        (f", each pixel the mean of {block} × {block} elements" if block > 1 else "")
    return (f'<figure class="cint-heat-map" data-shape="{height},{width}" data-min="{low:g}" data-max="{high:g}">'
            f'<img alt="{html.escape(shown)}" src="data:image/png;base64,{data}"/>'
            f"<figcaption>{html.escape(shown)} (viridis)</figcaption></figure>")
