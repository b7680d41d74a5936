"""Operation identifiers and the faults each operation can raise (LANGUAGE.md
"Expressions": the table of spellings, identifiers and faults).

An identifier is the operation, its form and the suffixes of its operand types:
`add.checked.i64`, `add.wrap.u8`, `min.q16.16`, `as.checked.i64.i32` (source, then
destination), `div_round.checked.i64.half_even`, `index.checked`. Fault records, the
IR's counted nodes, hovers and `cint emit-ir` all carry it.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from .faults import E_BOUNDS, E_DIV_ZERO, E_EMPTY, E_NARROW, E_OVERFLOW, E_SHIFT


class Spelled(Protocol):
    """What the vocabulary needs of a cint type (`analysis.types` defines them): its
    name. The types an operation acts on have a `suffix` too (`i64`, `q16.16`, `bool`),
    which `suffix` and `values.format_value` read where there is one: any type may be
    passed (an IR node's is `Type`), and one without a suffix is refused there."""

    @property
    def name(self) -> str: ...  # `I64`, `Q16.16`, `Bool`


def suffix(t: Spelled) -> str:
    """The type suffix of identifiers: the type's name in lower case (`i32`, `u128`,
    `q16.16`). ValueError for a type no operation acts on (an array, void, an error)."""
    spelled = getattr(t, "suffix", None)
    if not isinstance(spelled, str):
        raise ValueError(f"no operation acts on {t}")
    return spelled


# ---- identifiers

INDEX_ID = "index.checked"  # an element read
STORE_ID = "store.checked"  # the place of an element store


def op_id(op: str, form: str | None, t: Spelled) -> str:
    """`add.checked.i64`, `add.wrap.u8`, `add.sat.q16.16`; `min.i64` when form is None."""
    return f"{op}.{suffix(t)}" if form is None else f"{op}.{form}.{suffix(t)}"


def conversion_id(form: str, src: Spelled, dst: Spelled) -> str:
    """`as.checked.i64.i32`, `as.wrap.i64.i32`: the source, then the destination."""
    return f"as.{form}.{suffix(src)}.{suffix(dst)}"


def div_round_id(t: Spelled, mode: str) -> str:
    """`div_round.checked.i64.half_even`."""
    return f"div_round.checked.{suffix(t)}.{mode}"


def reduction_id(kind: str, contrib: Spelled, target: Spelled) -> str:
    """The identifier of a reduction (SPEC-02P.1 clause 9): `sum.checked.i32.i64`,
    `sum_wrap.i8`, `sum_sat.i8`, `min.i64`, `max.q16.16`, `count.checked.i64`,
    `fold_checked.add.i64`."""
    c, t = suffix(contrib), suffix(target)
    if kind == "sum":
        return f"sum.checked.{c}.{t}"
    if kind in ("sum_wrap", "sum_sat", "min", "max"):
        return f"{kind}.{t}"
    if kind == "count":
        return f"count.checked.{t}"
    if kind == "fold_checked":
        return f"fold_checked.add.{t}"
    raise ValueError(f"unknown reduction {kind!r}")


# ---- faults



class Fault(NamedTuple):
    """A fault an operation can raise: its code, and when it is raised where that is
    not at the operation itself (a reduction's faults come in the epilogue)."""

    code: str
    when: str = ""

    def __str__(self) -> str:
        return f"{self.code} ({self.when})" if self.when else self.code


# The checked form of each operation, by an identifier's first part; the wrapping and
# saturating forms raise none.
_OPERATION_FAULTS: dict[str, tuple[Fault, ...]] = {
    "add": (Fault(E_OVERFLOW),), "sub": (Fault(E_OVERFLOW),), "mul": (Fault(E_OVERFLOW),),
    "neg": (Fault(E_OVERFLOW),), "abs": (Fault(E_OVERFLOW),),
    "div": (Fault(E_DIV_ZERO), Fault(E_OVERFLOW)),  # MIN / -1 overflows
    "rem": (Fault(E_DIV_ZERO),),
    "shl": (Fault(E_SHIFT), Fault(E_OVERFLOW)),  # lost bits of `<<`
    "shr": (Fault(E_SHIFT),),
    "div_round": (Fault(E_DIV_ZERO), Fault(E_OVERFLOW)),
    "as": (Fault(E_NARROW),),
    "min": (), "max": (),
    "index": (Fault(E_BOUNDS),), "store": (Fault(E_BOUNDS),),
}

# By reduction kind (SPEC-02P.1 9.1, 9.2); sum_wrap and sum_sat raise none.
_REDUCTION_FAULTS: dict[str, tuple[Fault, ...]] = {
    "sum": (Fault(E_OVERFLOW, "in the epilogue"),),
    "count": (Fault(E_OVERFLOW, "in the epilogue"),),
    "min": (Fault(E_EMPTY, "in the epilogue, when no work-item contributes"),),
    "max": (Fault(E_EMPTY, "in the epilogue, when no work-item contributes"),),
    "fold_checked": (Fault(E_OVERFLOW, "at the work-item whose contribution overflows the fold"),),
    "sum_wrap": (), "sum_sat": (),
}


def operation_faults(identifier: str) -> tuple[Fault, ...]:
    """The faults the operation `identifier` can raise (not a reduction's: `min.i64`
    names the built-in and the reduction alike, see `reduction_faults`)."""
    operation, _, rest = identifier.partition(".")
    if rest.split(".")[0] in ("wrap", "sat"):
        return ()
    return _OPERATION_FAULTS.get(operation, ())


def reduction_faults(kind: str) -> tuple[Fault, ...]:
    """The faults a reduction of `kind` (`sum`, `min`, `fold_checked`, ...) can raise."""
    return _REDUCTION_FAULTS.get(kind, ())
