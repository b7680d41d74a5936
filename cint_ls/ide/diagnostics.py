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

from collections.abc import Callable, Sequence
from dataclasses import replace

from ..analysis.capabilities import EXECUTOR as GPU
from ..analysis.capabilities import Refusal, _KernelWalk, gpu_refusals
from ..syntax import ast
from ..syntax.diagnostics import Diagnostic, Severity
from .document import Move
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


def capability_diagnostics(checked, targets: Sequence[str] = DEFAULT_TARGETS,
                           refusals: Callable[[], list[Refusal]] | None = None) -> list[Diagnostic]:
    """The refusals of gpu-cuda as diagnostics; none when gpu-cuda is not a target.
    `refusals` gives them (default: `gpu_refusals(checked)`)."""
    targets = tuple(targets)
    if GPU not in targets:
        return []
    others = any(t != GPU for t in targets)
    severity = Severity.WARNING if others else Severity.ERROR
    found = refusals() if refusals is not None else gpu_refusals(checked)
    return [refusal_diagnostic(r, i == 0, severity) for i, r in enumerate(found)]


def _refusals(doc) -> list[Refusal]:
    """`gpu_refusals` kernel by kernel, kept with each kernel's item across versions
    (with the place they were found at, moved when the kernel moved). By `_KernelWalk`,
    not `kernel_refusals`: what that keeps on a KernelInfo has frozen spans, which stay
    where they were when a later version reuses the kernel at another place."""
    checked = doc.checked
    out: list[Refusal] = []
    for part in doc.parts():
        node = part.node
        info = checked.kernels.get(node.name.text) if isinstance(node, ast.KernelDef) else None
        if info is None or info.node is not node:
            continue
        entry = part.entry
        kept = entry.results.get("refusals") if entry is not None else None
        if kept is None:
            found = _KernelWalk(checked, info).run()
            doc.counters["refusals"] = doc.counters.get("refusals", 0) + 1
        elif kept[0] == part.at:
            found = kept[1]
        else:
            move = Move(kept[0], part.at)
            found = [replace(r, span=move.span(r.span)) for r in kept[1]]
        if entry is not None:
            entry.results["refusals"] = (part.at, found)
        out += found
    return out


def frozen(d: Diagnostic) -> Diagnostic:
    """The diagnostic with frozen spans: it no longer moves when a later version
    reuses the item it is in (the analysis's own diagnostics are anchored)."""
    related = tuple(replace(r, span=r.span.freeze()) for r in d.related)
    return replace(d, span=d.span.freeze(), related=related)


@total(list)
def diagnostics(doc, targets: Sequence[str] = DEFAULT_TARGETS) -> list[Diagnostic]:
    """Every diagnostic of the document, in source order; their spans are frozen, so
    they can be read outside the document's lock. Kept per version and targets."""
    key = ("diagnostics", tuple(targets))
    found = doc.memo.get(key)
    if found is None:
        checked = doc.checked
        found = list(checked.diagnostics)
        found += capability_diagnostics(checked, targets, lambda: _refusals(doc))
        found.sort(key=lambda d: (d.span.start_byte, d.code))
        found = doc.memo[key] = [frozen(d) for d in found]
    return list(found)
