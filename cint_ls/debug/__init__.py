"""cint-debug: a Debug Adapter Protocol server for cint programs (issue 30).

Beside the language server (`cint_ls.server`): the only code that knows DAP. It runs a
program on the reference (cpu-sir-interp) with itself as the interpreter's observer
(exec/interp/observer.py): breakpoints on lines, stepping by statement (over, in, out),
a stop where a fault is raised with the fault record, the stack of calls, dispatch and
work-item, their variables by name.

- `main.py`: the command line (`cint-debug`, `python -m cint_ls.debug`), DAP over stdio;
- `adapter.py`: the requests and events (typed by `dap-types`; the base protocol's
  framing is the language server's, server/framing.py);
- `debuggee.py`: the program running on its thread, stopping where asked;
- `variables.py`: frames and variables as the source names them.
"""
