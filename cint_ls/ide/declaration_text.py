"""The text of declarations that several features show: signatures and parameters, a
kernel's iteration space and where clause, and what its declaration implies, the
work-item index formula and the fuel of a dispatch (SPEC-02P.1 3.2, 8.2, 8.4, 11.2)."""

from __future__ import annotations

from ..analysis.result import CheckedModule, FunctionInfo, KernelInfo
from ..syntax import ast
from ..syntax.source import Span
from .find import walk


def text(checked: CheckedModule, span: Span) -> str:
    raw = checked.source.data[span.start_byte:span.end_byte].decode("utf-8", errors="replace")
    return " ".join(raw.split())


def type_ref_text(checked: CheckedModule, ref: ast.TypeRef) -> str:
    return text(checked, ref.span) or "?"


def param_text(checked: CheckedModule, param: ast.Param, kernel: bool) -> str:
    mode = f"{param.effective_mode} " if kernel else ""
    return f"{mode}{type_ref_text(checked, param.type)} {param.name.text}".strip()


def kernel_params(checked: CheckedModule, info: KernelInfo) -> list[str]:
    return [param_text(checked, p, True) for p in info.node.params]


def kernel_signature(checked: CheckedModule, info: KernelInfo) -> str:
    node = info.node
    sizes = ", ".join(s.text for s in node.sizes)
    return f"kernel {node.name.text}[{sizes}]({', '.join(kernel_params(checked, info))})"


def function_params(checked: CheckedModule, info: FunctionInfo) -> list[str]:
    return [param_text(checked, p, False) for p in info.node.params]


def function_signature(checked: CheckedModule, info: FunctionInfo) -> str:
    node = info.node
    export = "export " if node.export else ""
    return (f"{export}{type_ref_text(checked, node.return_type)} {node.name.text}"
            f"({', '.join(function_params(checked, info))})")


def over_text(checked: CheckedModule, info: KernelInfo) -> str:
    dims = ", ".join(f"{b.name.text}: {text(checked, b.extent.span)}" for b in info.node.space)
    return f"over [{dims}]"


def where_text(checked: CheckedModule, info: KernelInfo) -> str:
    return ", ".join(text(checked, c.span) for c in info.node.where)


def _factor(checked: CheckedModule, e: ast.Expr) -> str:
    """An extent as a factor of a product: parenthesized unless a name or a literal."""
    t = text(checked, e.span)
    if isinstance(e, (ast.Ident, ast.IntLit, ast.Paren)):
        return t
    return f"({t})"


def index_formula(checked: CheckedModule, info: KernelInfo) -> str:
    """`i = y * w + x`; for three dimensions `i = (z * h + y) * w + x`."""
    space = info.node.space
    if not space:
        return "i"
    formula = space[0].name.text
    for k, binding in enumerate(space[1:], start=1):
        left = f"({formula})" if k > 1 else formula
        formula = f"{left} * {_factor(checked, binding.extent)} + {binding.name.text}"
    return f"i = {formula}"


def decomposition(checked: CheckedModule, info: KernelInfo) -> str:
    """The index tuple of work-item i (8.2 para 3): `y = i / w, x = i % w`."""
    space = info.node.space
    parts = []
    for k, binding in enumerate(space):
        later = [_factor(checked, b.extent) for b in space[k + 1:]]
        stride = " * ".join(later)
        value = f"i / ({stride})" if len(later) > 1 else (f"i / {stride}" if later else "i")
        if k > 0:
            value = f"({value}) % {_factor(checked, binding.extent)}" if later else \
                f"i % {_factor(checked, binding.extent)}"
        parts.append(f"{binding.name.text} = {value}")
    return ", ".join(parts)


def work_items(checked: CheckedModule, info: KernelInfo) -> str:
    """N, the number of work-items: the product of the over extents."""
    space = info.node.space
    if not space:
        return "0"
    if len(space) == 1:
        return text(checked, space[0].extent.span)
    return " * ".join(_factor(checked, b.extent) for b in space)


def body_has_loops_or_calls(checked: CheckedModule, info: KernelInfo) -> bool:
    for node in walk(info.node.body):
        if isinstance(node, (ast.For, ast.While)):
            return True
        if isinstance(node, ast.Call):
            call = checked.calls.get(node)
            if call is not None and call.kind == "function":
                return True
    return False


def fuel_text(checked: CheckedModule, info: KernelInfo, n: str | None = None) -> str:
    """The fuel a dispatch is charged (8.4; 11.2 para 2)."""
    n = n or work_items(checked, info)
    if body_has_loops_or_calls(checked, info):
        return (f"`{n}` units at the dispatch's entry (one per work-item), plus the loop iterations and "
                "calls of every work-item")
    return f"`{n}` units per dispatch: its dispatch charge, one per work-item (the body has no loop or call)"
