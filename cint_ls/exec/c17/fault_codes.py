"""rt/cint_faults.h, the run-time's names for the fault codes, generated from the
vocabulary's one list (`cint_ls.vocabulary.faults`), so that the C run-time spells no
code of its own (issue 29, "one copy of each rule").

The header is committed (setup.py's prebuilt run-time and toolchain.py hash it as one
of the run-time's headers, with no import from the package); tests/c17/test_fault_codes.py
regenerates it and fails when it differs. After a change to the vocabulary's codes:

    python -m cint_ls.exec.c17.fault_codes        # rewrites rt/cint_faults.h
"""

from __future__ import annotations

import sys
from pathlib import Path

from ...vocabulary.faults import CINT_RESOURCE, FAULT_MESSAGES

HEADER = Path(__file__).parent / "rt" / "cint_faults.h"


def c_name(code: str) -> str:
    """The macro that spells fault code `code` in C: E_OVERFLOW -> CINT_E_OVERFLOW."""
    return "CINT_" + code


def header_text() -> str:
    lines = [
        "/* The fault codes of SPEC-02P.1 5.6 as the run-time spells them in a fault record.",
        " *",
        " * GENERATED from cint_ls/vocabulary/faults.py by `python -m cint_ls.exec.c17.fault_codes`:",
        " * do not edit (tests/c17/test_fault_codes.py fails when this file is not what the",
        " * vocabulary makes). */",
        "#ifndef CINT_FAULTS_H",
        "#define CINT_FAULTS_H",
        "",
    ]
    for code, message in FAULT_MESSAGES.items():
        lines.append(f'#define {c_name(code)} "{code}" /* {message} */')
    lines += [
        "",
        "/* A host status (10.5 para 9, 10.6 para 11): not a cint fault, a record of the same shape. */",
        f'#define CINT_RESOURCE_CODE "{CINT_RESOURCE}" /* the status itself is cint_rt.h\'s CINT_RESOURCE */',
        "",
        "#endif",
        "",
    ]
    return "\n".join(lines)


def main() -> int:
    text = header_text()
    if HEADER.exists() and HEADER.read_text(encoding="utf-8") == text:
        print(f"{HEADER}: up to date")
        return 0
    HEADER.write_text(text, encoding="utf-8", newline="\n")
    print(f"{HEADER}: written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
