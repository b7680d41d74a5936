"""Diagnostics of a document: syntax, names, types, kernel rules, C5010 (the analysis),
and the gpu-cuda capability refusals (SPEC-02P.1 10.5).

A refusal is a diagnostic with code `C9100`, `capability` and `executor="gpu-cuda"`.
How it is shown depends on the targets the user builds for (the `cint.targets`
setting):

- gpu-cuda the only target: an error at each refused construct, "gpu-cuda refuses
  `neg`: unary minus" (the program cannot run anywhere; each one needs fixing).
- another target too (the default, cpu-c17 and gpu-cuda; cpu-c17 and cpu-sir-interp run
  everything): the program runs, so the editor says it once per kernel: ONE warning on
  the kernel's name listing what is refused, each construct as related information, and
  a hint-level mark (`data["mark"]`) at each construct. A warning per construct would
  cover a kernel that runs fine on the CPU in yellow (ops_kernel.ci: 11).

The first refusal of the module, the one a gpu-cuda build reports, says so in its
message and has `data["first"] = True` (on the kernel's warning when grouped).
`capability_diagnostics` is the per-construct list `cint check --executor gpu-cuda`
prints; `grouped_diagnostics` the editor's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..analysis.capabilities import CAPABILITIES, Refusal, _KernelWalk, gpu_refusals
from ..analysis.capabilities import EXECUTOR as GPU
from ..analysis.result import CheckedModule
from ..syntax import ast
from ..syntax.diagnostics import Diagnostic, Related, Severity
from ..syntax.source import Span
from .document import Move
from .find import total

if TYPE_CHECKING:
    from .document import DocumentLike

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


def capability_diagnostics(checked: CheckedModule, targets: Sequence[str] = DEFAULT_TARGETS,
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


MAX_LISTED = 4  # constructs named in a kernel's warning; the related information has them all


def _kernel_list(refusals: list[Refusal], limit: int = MAX_LISTED) -> str:
    """What a kernel's refusals need, in build order, each capability once: what the
    construct is when one needs it, else what the capability covers:
    "`neg` (unary minus), `bits` (&, |, ^ or ~), ...", the first MAX_LISTED."""
    seen: dict[str, list[str]] = {}
    for r in refusals:
        seen.setdefault(r.capability, []).append(r.what)
    parts = [f"`{capability}` ({whats[0] if len(set(whats)) == 1 else CAPABILITIES.get(capability, whats[0])})"
             for capability, whats in seen.items()]
    if len(parts) > limit:
        parts = parts[:limit] + [f"{len(parts) - limit} more"]
    return ", ".join(parts)


def refusal_summary(refusals: list[Refusal], limit: int = MAX_LISTED) -> str:
    """The refused capabilities of a list of refusals, for a lens or a message."""
    return _kernel_list(refusals, limit)


def grouped_diagnostics(refusals: list[Refusal], kernel_names: Mapping[str, Span],
                        others: Sequence[str] = ("cpu-c17",)) -> list[Diagnostic]:
    """The editor's refusals while `others` (targets that run everything) run the
    kernels: one warning per kernel on its name (`kernel_names`: kernel -> the span of
    its name) with every construct as related information, and a hint at each construct."""
    by_kernel: dict[str, list[Refusal]] = {}
    for r in refusals:
        by_kernel.setdefault(r.kernel, []).append(r)
    out: list[Diagnostic] = []
    first_kernel = refusals[0].kernel if refusals else None
    for kernel, found in by_kernel.items():
        count = len(found)
        message = (f"gpu-cuda refuses kernel `{kernel}`: {_kernel_list(found)} ({count} construct"
                   f"{'' if count == 1 else 's'}; {', '.join(others)} runs it)")
        first = kernel == first_kernel
        if first:
            head = found[0]
            message += f" (a gpu-cuda build fails first at {head.span.line}:{head.span.column}, {head.what})"
        related = tuple(Related(r.span, f"gpu-cuda refuses `{r.capability}`: {r.what}") for r in found)
        span = kernel_names.get(kernel, found[0].span)
        out.append(Diagnostic(
            REFUSAL_CODE, Severity.WARNING, message, span, related=related,
            capability=found[0].capability, executor=GPU,
            data={"first": first, "kernel": kernel, "what": found[0].what,
                  "capabilities": sorted({r.capability for r in found}), "constructs": count},
        ))
        for r in found:
            out.append(Diagnostic(
                REFUSAL_CODE, Severity.HINT, r.message, r.span, capability=r.capability, executor=GPU,
                data={"first": False, "kernel": kernel, "what": r.what, "mark": True},
            ))
    return out


def _editor_refusals(doc: DocumentLike, targets: Sequence[str]) -> list[Diagnostic]:
    """The refusals as the editor shows them (the module docstring)."""
    targets = tuple(targets)
    if GPU not in targets:
        return []
    if all(t == GPU for t in targets):
        return capability_diagnostics(doc.checked, targets, lambda: _refusals(doc))
    names = {part.node.name.text: part.node.name.span for part in doc.parts() if isinstance(part.node, ast.KernelDef)}
    return grouped_diagnostics(_refusals(doc), names, [t for t in targets if t != GPU])


def module_refusals(doc: DocumentLike) -> list[Refusal]:
    """Every construct of the document's kernels that gpu-cuda refuses, in build order
    (the first is the one a gpu-cuda build reports); spans frozen."""
    return [replace(r, span=r.span.freeze()) for r in _refusals(doc)]


def _refusals(doc: DocumentLike) -> list[Refusal]:
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
def diagnostics(doc: DocumentLike, targets: Sequence[str] = DEFAULT_TARGETS) -> list[Diagnostic]:
    """Every diagnostic of the document, in source order; their spans are frozen, so
    they can be read outside the document's lock. Kept per version and targets."""
    key = ("diagnostics", tuple(targets))
    found = doc.memo.get(key)
    if found is None:
        checked = doc.checked
        found = list(checked.diagnostics)
        found += _editor_refusals(doc, targets)
        found.sort(key=lambda d: (d.span.start_byte, d.code))
        found = doc.memo[key] = [frozen(d) for d in found]
    return list(found)
