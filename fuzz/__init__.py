"""The fuzzers, run by hand for hours from the repository's root (docs/testing.md,
"Fuzzing"); a short fixed-seed run of each is part of the tests.

- `fuzz.gen`: random well-typed cint programs (`python -m fuzz.gen SEED` prints one);
- `fuzz.exec`: the executors' differential fuzzer over those programs
  (`python -m fuzz.exec --seconds S --seed N`);
- `fuzz.lsp`: the LSP fuzzer (`python -m fuzz.lsp --steps N --seed S`);
- `fuzz.lsp_raw`: the raw-bytes LSP client it drives `cint-ls` with, which the server's
  framing, lifecycle and leak tests use too.

Not part of the published package (pyproject.toml ships `cint_ls` only). `python -m`
from the root puts the root first on `sys.path`, so the fuzzers import the working
tree's `cint_ls` (an editable install's); the server they start (`lsp_raw`) runs with
`python -P`, the installed one. The tests import this package from the root without
letting it shadow the installed `cint_ls` (tests/conftest.py).
"""
