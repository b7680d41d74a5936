"""cint-ls: the language server, toolchain and editor integration for cint."""

__version__ = "0.1.0"
