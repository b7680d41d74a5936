"""Workspace symbols' pieces: the fuzzy match and a document's top-level symbols."""

from __future__ import annotations

from ide_support import conformance

from cint_ls import ide


def test_subsequence_in_order_case_ignored():
    assert ide.fuzzy_score("dfs", "diffuse") is not None
    assert ide.fuzzy_score("DIF", "diffuse") is not None
    assert ide.fuzzy_score("sdf", "diffuse") is None  # out of order
    assert ide.fuzzy_score("diffusex", "diffuse") is None
    assert ide.fuzzy_score("", "anything") is not None


def test_better_matches_sort_first():
    names = ["do_step", "step", "Step2", "s_t_e_p", "stepper"]
    ranked = sorted(names, key=lambda n: ide.fuzzy_score("step", n))
    assert ranked == ["step", "stepper", "Step2", "do_step", "s_t_e_p"]
    assert ide.fuzzy_score("step", "reduce_all") is None


def test_top_level_symbols_have_no_children():
    doc = conformance("heat_e1.ci")
    assert [(s.name, s.kind, s.children) for s in ide.top_level_symbols(doc)] == [
        ("diffuse", "kernel", ()), ("step", "function", ())]
