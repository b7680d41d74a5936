"""The fault codes (SPEC-02P.1 5.6, LANGUAGE.md "Reports"), each with its one-line
message, and the code of a host status. The one list: the executors' fault records
read it, and cpu-c17's run-time spells them through the header generated from it
(`cint_ls.exec.c17.fault_codes`, rt/cint_faults.h)."""

from __future__ import annotations

E_OVERFLOW = "E_OVERFLOW"
E_DIV_ZERO = "E_DIV_ZERO"
E_NARROW = "E_NARROW"
E_SHAPE = "E_SHAPE"
E_ALIAS = "E_ALIAS"
E_FUEL = "E_FUEL"
E_UNSUPPORTED = "E_UNSUPPORTED"
E_STALE_HANDLE = "E_STALE_HANDLE"
E_BOUNDS = "E_BOUNDS"
E_SHIFT = "E_SHIFT"
E_EMPTY = "E_EMPTY"
E_ASSERT = "E_ASSERT"

# The one-line message of every fault code (LANGUAGE.md, fault codes table).
FAULT_MESSAGES = {
    E_OVERFLOW: "the exact result is outside the type's range",
    E_DIV_ZERO: "division by zero",
    E_NARROW: "the value does not fit the destination type",
    E_SHAPE: "shapes do not match",
    E_ALIAS: "views overlap",
    E_FUEL: "fuel allowance exhausted",
    E_UNSUPPORTED: "the executor does not support this",
    E_STALE_HANDLE: "the view's storage was released or reset",
    E_BOUNDS: "index out of range",
    E_SHIFT: "shift count out of range",
    E_EMPTY: "the reduction has no contributions",
    E_ASSERT: "assertion failed",
}

# Host statuses (SPEC-02P.1 10.5 para 9, 10.6 para 11): not cint faults, but the entry
# ends with a boundary record in the fault record's shape, with this code.
CINT_RESOURCE = "CINT_RESOURCE"
