"""Diagnostics of a document: syntax, names, types, kernel rules, C5010 (the analysis),
and the gpu-cuda capability refusals (SPEC-02P.1 10.5).

A refusal is a diagnostic with code `C9100`, `capability` and `executor="gpu-cuda"`,
at the refused construct, with the message "gpu-cuda refuses `neg`: unary minus". Its
severity depends on the targets the user builds for (the `cint.targets` setting): a
warning while another target in `targets` can still run the kernel (cpu-c17 and
cpu-sir-interp run everything), an error when gpu-cuda is the only target. The first
refusal of the module, the one a gpu-cuda build reports, says so in its message and
has `data["first"] = True`.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.capabilities import EXECUTOR as GPU, Refusal, gpu_refusals
from ..syntax.diagnostics import Diagnostic, Severity
from .find import total

REFUSAL_CODE = "C9100"
DEFAULT_TARGETS = ("cpu-c17", "gpu-cuda")
# Executors whose profile admits every construct of cint-core-1 (SPEC-02P.1 10.3, 10.4).
RUN_EVERYTHING = ("cpu-c17", "cpu-sir-interp")


def refusal_diagnostic(refusal: Refusal, first: bool, severity: Severity) -> Diagnostic:
    message = refusal.message
    if first:
        message += f" (the first refused construct: a gpu-cuda build fails here, in kernel `{refusal.kernel}`)"
    return Diagnostic(
        REFUSAL_CODE, severity, message, refusal.span,
        capability=refusal.capability, executor=GPU,
        data={"first": first, "kernel": refusal.kernel, "what": refusal.what},
    )


def capability_diagnostics(checked, targets: Sequence[str] = DEFAULT_TARGETS) -> list[Diagnostic]:
    """The refusals of gpu-cuda as diagnostics; none when gpu-cuda is not a target."""
    targets = tuple(targets)
    if GPU not in targets:
        return []
    others = any(t != GPU for t in targets)
    severity = Severity.WARNING if others else Severity.ERROR
    refusals = gpu_refusals(checked)
    return [refusal_diagnostic(r, i == 0, severity) for i, r in enumerate(refusals)]


@total(list)
def diagnostics(doc, targets: Sequence[str] = DEFAULT_TARGETS) -> list[Diagnostic]:
    """Every diagnostic of the document, in source order."""
    checked = doc.checked
    out = list(checked.diagnostics)
    out += capability_diagnostics(checked, targets)
    out.sort(key=lambda d: (d.span.start_byte, d.code))
    return out
