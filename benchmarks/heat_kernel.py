"""The heat kernel of SPEC-02P.1 clause 11, as the benchmarks use it."""

from __future__ import annotations

HEAT_KERNEL = """kernel diffuse[h, w](
    in I32[h, w] u,
    I64 kn,
    I64 kd,
    out I32[h, w] v,
    out I64 total
) over [y: h, x: w] {
    I64 c = u[y, x] as I64;
    I32 r = u[y, x];
    if (y > 0 && y < h - 1 && x > 0 && x < w - 1) {
        I64 lap = (u[y - 1, x] as I64) + (u[y + 1, x] as I64)
            + (u[y, x - 1] as I64) + (u[y, x + 1] as I64) - 4 * c;
        I64 flux = div_round(kn * lap, kd, half_even);
        r = (c + flux) as I32;
    }
    v[y, x] = r;
    reduce total = sum(r);
}
"""


def heat_kernel(name: str = "diffuse") -> str:
    return HEAT_KERNEL.replace("kernel diffuse", f"kernel {name}", 1)


def heat_file(lines: int) -> str:
    """At least `lines` lines: the kernel repeated as diffuse0, diffuse1, ..., each
    followed by a blank line."""
    per = HEAT_KERNEL.count("\n") + 1
    return "".join(heat_kernel(f"diffuse{k}") + "\n" for k in range(lines // per + 1))
