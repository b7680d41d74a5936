"""cint-workbench: the interactive session of SPEC-02P.1's transcripts (issue 31).

`session.py` is the engine (inputs in, answers out), `program.py` the session as one
program and the way back from its positions to the inputs, `main.py` the command line
(a prompt_toolkit prompt on a terminal, `--plain` lines otherwise).
"""
