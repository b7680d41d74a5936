"""Running and presenting runs, above the executors: the one way to run a program (run.py),
its child process (isolated.py), the executor `auto` (auto.py), comparing two runs
(compare.py), the fault report and the run report (report.py), the trace (trace.py) and its
page (trace_page.py)."""
