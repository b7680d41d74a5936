"""The language server (`cint-ls`): LSP over stdio on top of `cint_ls.ide`. The only
code of the project that knows LSP. Start it with `cint-ls` or `python -m cint_ls.server`;
see docs/server.md."""
