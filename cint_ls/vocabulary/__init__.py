"""The vocabulary every layer shares, at the bottom of the layering: operation
identifiers and the faults each operation can raise (`operations`), the source
operators and the operations they name (`operators`), and value text (`values`).

It imports nothing of cint_ls (tests/test_layers.py checks it). A cint type is
whatever has the `name` and `suffix` of `cint_ls.analysis.types`: the vocabulary
spells types, it does not define them.
"""
