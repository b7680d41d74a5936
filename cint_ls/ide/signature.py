"""Signature help on dispatches, calls, built-ins and reduce operators: the signature,
its parameters and the one the cursor is in (read from the raw text before the cursor,
so it works while the call is half typed)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..analysis.builtins import BUILTIN_FUNCTIONS, REDUCE_OPERATORS
from . import declaration_text
from .completion import _in_comment_or_string, _open_call
from .find import clamp, total
from .results import SignatureHelp

if TYPE_CHECKING:
    from .document import DocumentLike

BUILTIN_SIGNATURES = {
    "div_round": ("div_round", ("a", "b", "mode")),
    "min": ("min", ("a", "b")),
    "max": ("max", ("a", "b")),
    "abs": ("abs", ("a",)),
    "reverse": ("reverse", ("v", "d")),
    "transpose": ("transpose", ("v",)),
}
REDUCE_SIGNATURES = {
    "fold_checked": ("add", "init", "x"),
    "count": ("c",),
}
_REDUCE_CALL = re.compile(rb"\breduce\s+[A-Za-z_][A-Za-z0-9_]*\s*=\s*([A-Za-z_][A-Za-z0-9_]*)\s*\([^;]*$")


def _help(prefix: str, params: list[str], active: int, documentation: str) -> SignatureHelp:
    label = f"{prefix}({', '.join(params)})"
    active = min(active, len(params) - 1) if params else 0
    return SignatureHelp(label, tuple(params), active, documentation)


@total(lambda: None)
def signature_help(doc: DocumentLike, offset: int) -> SignatureHelp | None:
    offset = clamp(doc, offset)
    if _in_comment_or_string(doc, offset):
        return None
    before = doc.source.data[max(0, offset - 4000):offset]
    call = _open_call(before)
    if call is None:
        return None
    name, active = call
    checked = doc.checked
    reduce_match = _REDUCE_CALL.search(before)
    if reduce_match is not None and reduce_match.group(1).decode() == name and name in REDUCE_OPERATORS:
        params = list(REDUCE_SIGNATURES.get(name, ("x",)))
        return _help(name, params, active, f"reduction `{name}`: {REDUCE_OPERATORS[name]}")
    if name in checked.kernels:
        info = checked.kernels[name]
        params = declaration_text.kernel_params(checked, info)
        doc_text = (f"one work-item for each point of `{declaration_text.over_text(checked, info)}`; fuel: "
                    f"{declaration_text.fuel_text(checked, info)}")
        return _help(name, params, active, doc_text)
    if name in checked.functions:
        function = checked.functions[name]
        params = declaration_text.function_params(checked, function)
        prefix = f"{declaration_text.type_ref_text(checked, function.node.return_type)} {name}"
        return _help(prefix, params, active, "function call (charges 1 unit of fuel)")
    if name in BUILTIN_SIGNATURES:
        prefix, names = BUILTIN_SIGNATURES[name]
        return _help(prefix, list(names), active, BUILTIN_FUNCTIONS[name])
    return None
