"""The executors' names: every executor of SPEC-02P.1 clause 10, in the order tools
list them. Here rather than beside the executors (exec/executors.py re-exports them) so
that what only names an executor (the server's settings, read at start-up) imports
none of them."""

EXECUTOR_NAMES = ("cpu-sir-interp", "cpu-c17", "gpu-cuda")
