"""Admission (SPEC-02P.1 10.5 paragraphs 10 and 11): a program builds for gpu-cuda only
when every kernel stays within Table 3. The profile and the walk that finds refused
constructs live once, in `cint_ls.analysis.capabilities` (the editor's diagnostics and
hovers read the same list); this module only turns its first refusal into the build's
E_UNSUPPORTED diagnostic, naming the construct, its kernel, the capability and, by its
span, the line and column.
"""

from __future__ import annotations

from ...analysis.capabilities import Refusal, gpu_refusals
from ...analysis.result import CheckedModule
from ...ir.build import Build
from ...syntax.diagnostics import Diagnostic, Severity
from ...syntax.report import display_path

EXECUTOR = "gpu-cuda"
CODE = "E_UNSUPPORTED"


def first_refusal(checked: CheckedModule) -> Refusal | None:
    """The refusal a gpu-cuda build reports: the first in build order."""
    refusals = gpu_refusals(checked)
    return refusals[0] if refusals else None


def refusal_diagnostic(refusal: Refusal, path: str | None = None) -> Diagnostic:
    """The build error of a refusal: `gpu-cuda refuses kernel `ops`: capability `neg`
    (unary minus) at ops_kernel.ci:3:13` (the same words as `cint check --executor
    gpu-cuda`), with the capability and the executor as the diagnostic's fields."""
    where = f"{refusal.span.line}:{refusal.span.column}"
    if path is not None:
        where = f"{display_path(path)}:{where}"
    message = (f"gpu-cuda refuses kernel `{refusal.kernel}`: capability `{refusal.capability}` "
               f"({refusal.what}) at {where}")
    return Diagnostic(CODE, Severity.ERROR, message, refusal.span, capability=refusal.capability,
                      executor=EXECUTOR)


def admit(checked: CheckedModule) -> Diagnostic | None:
    """None when the module builds for gpu-cuda, else its E_UNSUPPORTED diagnostic."""
    refusal = first_refusal(checked)
    return None if refusal is None else refusal_diagnostic(refusal, checked.source.path)


def admit_build(built: Build) -> Diagnostic | None:
    """`admit` for a `cint_ls.ir.build.Build` (gpu-cuda's `Executor.admit`)."""
    return admit(built.checked)
