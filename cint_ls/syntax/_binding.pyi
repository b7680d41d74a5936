# The C extension built from binding.c (setup.py); mypy cannot read the shared object.

def language() -> object:
    """The cint grammar as a PyCapsule named "tree_sitter.Language"."""
