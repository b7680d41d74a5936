"""The C run-time's fault codes come from the vocabulary's one list (issue 29, "one
copy of each rule"): rt/cint_faults.h is what `cint_ls.exec.c17.fault_codes` makes of
`cint_ls.vocabulary.faults`, and no run-time file spells a code as a string of its own."""

from __future__ import annotations

import re

from cint_ls.exec.c17 import fault_codes
from cint_ls.exec.c17.toolchain import RT_HEADERS, RT_SOURCES, rt_path
from cint_ls.exec.faults import FAULT_MESSAGES as RECORD_MESSAGES
from cint_ls.vocabulary.faults import FAULT_MESSAGES

FILES = [rt_path(name) for name in RT_SOURCES + RT_HEADERS]  # gpu-cuda's host in C included
CODE_LITERAL = re.compile(r'"(E_[A-Z_]+|CINT_RESOURCE)"')


def test_the_fault_codes_header_is_generated_from_the_vocabulary():
    assert fault_codes.HEADER.read_text(encoding="utf-8") == fault_codes.header_text(), (
        "rt/cint_faults.h is stale: run `python -m cint_ls.exec.c17.fault_codes`")


def test_the_run_time_spells_no_fault_code_of_its_own():
    assert fault_codes.HEADER in FILES
    spelled = [f"{path.name}:{text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}"
               for path in FILES if path != fault_codes.HEADER
               for text in [path.read_text(encoding="utf-8")] for m in CODE_LITERAL.finditer(text)]
    assert not spelled, "fault codes spelled outside rt/cint_faults.h: " + "; ".join(spelled)


def test_every_code_the_run_time_raises_is_the_vocabularys():
    used = set()
    for path in FILES:
        if path == fault_codes.HEADER:
            continue
        used |= set(re.findall(r"\bCINT_(E_[A-Z_]+)\b", path.read_text(encoding="utf-8")))
    assert used and used <= set(FAULT_MESSAGES), used - set(FAULT_MESSAGES)
    assert RECORD_MESSAGES is FAULT_MESSAGES  # the fault record's messages are the same list
