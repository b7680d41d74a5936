"""`python -m cint_ls.server`: the language server over stdio (same as `cint-ls`)."""

import sys

from .main import main

sys.exit(main())
