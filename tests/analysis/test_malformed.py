"""Malformed programs give diagnostics, never a Python traceback: the conformance
corpus with random deletions goes through parsing, analysis and, when it checks, the
IR lowering."""

from __future__ import annotations

from conftest import conformance_programs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cint_ls.ir.build import build

CORPUS = [p.read_text() for p in conformance_programs()]


@st.composite
def damaged(draw) -> str:
    text = draw(st.sampled_from(CORPUS))
    for _ in range(draw(st.integers(1, 6))):
        if not text:
            break
        start = draw(st.integers(0, len(text) - 1))
        length = draw(st.integers(1, 12))
        text = text[:start] + text[start + length:]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged())
def test_random_deletions_give_diagnostics(text):
    result = build(text, "damaged.ci")
    size = len(result.syntax.source.data)
    for diagnostic in result.checked.diagnostics:
        assert diagnostic.code[:2] in ("C1", "C2", "C3", "C5", "C9")
        assert diagnostic.message
        assert 0 <= diagnostic.span.start_byte <= diagnostic.span.end_byte <= size
    if result.syntax.diagnostics:
        assert result.checked.has_errors and result.program is None
