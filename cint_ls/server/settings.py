"""The server's settings (`cint.*`), read from `workspace/configuration`, from
`workspace/didChangeConfiguration` or from `initializationOptions`.

    cint.targets                 ["cpu-c17", "gpu-cuda"]  targets whose refusals are errors
    cint.fuel                    null                     fuel budget of a run (null: unlimited)
    cint.run.timeLimit           10                       seconds before a run is stopped
    cint.inlayHints.stepOrdinals true                     step-ordinal inlay hints on or off
    cint.c17.compiler            null                     the C compiler of cpu-c17 ($CC of its runs;
                                                          null: the server's own $CC, else cc, gcc, clang)
    cint.c17.threads             null                     threads of cpu-c17's large dispatches, 1 to
                                                          1024 (null: the cores the run may use)
    cint.cluster                 ""                       a Dask cluster for cpu-c17's large dispatches
                                                          (docs/cluster.md): "" none, "local:N",
                                                          "tcp://HOST:PORT" or "tls://HOST:PORT"
    cint.trace.arrays            "all"                    the 2-D out/inout arrays a run's trace
                                                          pictures: "all", "none", or names
                                                          (["v", "diffuse.v"], or "v, diffuse.v")
    cint.trace.arrayLimit        65536                    elements of one pictured array, 1 to
                                                          4194304 (256 × 256; 2048 × 2048)

`cint.c17.compiler` names one program, which runs on every Run: an absolute path (`~`
expanded) or a bare command name found on PATH (`clang`, `gcc-13`), never arguments or
shell words (`ccache gcc`, `sh -c ...`: refused with a warning; a compiler with arguments
goes in the server's own $CC). A relative path is refused too: it would name a file
of the workspace.

A settings object may nest (`{"run": {"timeLimit": 5}}`), use dotted keys
(`{"run.timeLimit": 5}`) or sit under a `cint` key; a value of the wrong type is
ignored with a warning and the previous value stays.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass, replace

from ..vocabulary.executors import EXECUTOR_NAMES

DEFAULT_TARGETS = ("cpu-c17", "gpu-cuda")
TRACE_ARRAY_LIMIT = 256 * 256  # elements of one pictured array in a run from the editor
TRACE_TOTAL = 1 << 20  # elements pictured over a run from the editor (at least one array)


@dataclass(frozen=True)
class Settings:
    targets: tuple[str, ...] = DEFAULT_TARGETS
    fuel: int | None = None
    time_limit: float = 10.0
    step_ordinals: bool = True
    c17_compiler: str | None = None  # as $CC holds it: one program, quoted (compiler_setting)
    c17_threads: int | None = None  # cpu-c17's option `threads` (None: its default, the cores)
    cluster: str | None = None  # cpu-c17's option `cluster` (exec/c17/cluster.py; None: no cluster)
    # The trace's pictures (exec/selection.py ArraySelection): the names of cint.trace.arrays,
    # None for all of them, () for none; each of at most trace_array_limit elements.
    trace_arrays: tuple[str, ...] | None = None
    trace_array_limit: int = TRACE_ARRAY_LIMIT

    def array_selection(self) -> dict | None:
        """The run's `trace_arrays` (RunRequest, ArraySelection.to_json), None for no
        pictures: over a run at most the larger of 1,048,576 elements and one array."""
        if self.trace_arrays == ():
            return None
        from ..exec.selection import ArraySelection

        names = None if self.trace_arrays is None else frozenset(self.trace_arrays)
        return ArraySelection(names, self.trace_array_limit, max(TRACE_TOTAL, self.trace_array_limit)).to_json()

    def run_options(self, executor: str) -> dict:
        """The options of an executor's run (`Request.options`): cpu-c17's `threads`
        and `cluster`. (The C compiler does not travel here: cpu-c17 reads `$CC`, which
        the server sets for its runs.)"""
        options: dict = {}
        if executor == "cpu-c17" and self.c17_threads is not None:
            options["threads"] = self.c17_threads
        if executor == "cpu-c17" and self.cluster is not None:
            options["cluster"] = self.cluster
        return options


_COMMAND_NAME = re.compile(r"[A-Za-z0-9_+][A-Za-z0-9_.+-]*")


def compiler_setting(value: str) -> tuple[str | None, str | None]:
    """`cint.c17.compiler` as the value of $CC for cpu-c17's runs (build.py splits $CC
    with shlex, so a path is quoted to stay one word), and a warning. A value that is not
    one program is refused: (None, why)."""
    text = value.strip()
    if _COMMAND_NAME.fullmatch(text):
        return text, None  # found on PATH by the run, as cc is
    path = os.path.expanduser(text)
    if not os.path.isabs(path):
        return None, (f"cint.c17.compiler: expected the absolute path of a C compiler or a command name on PATH, "
                      f"without arguments, got {value!r} (ignored; a compiler with arguments goes in the server's $CC)")
    path = os.path.normpath(path)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        return shlex.quote(path), f"cint.c17.compiler: {path} is not an executable file (cpu-c17 runs will fail)"
    return shlex.quote(path), None


def _flatten(value: object, prefix: str = "") -> dict[str, object]:
    """`{"run": {"timeLimit": 5}, "fuel": 3}` -> `{"run.timeLimit": 5, "fuel": 3}`;
    a leading `cint` level is dropped."""
    out: dict[str, object] = {}
    if not isinstance(value, dict):
        return out
    for key, item in value.items():
        name = f"{prefix}{key}"
        if name == "cint" or name.startswith("cint."):
            name = name[5:]
            if not name:
                out.update(_flatten(item, ""))
                continue
        if isinstance(item, dict):
            out.update(_flatten(item, name + "."))
        else:
            out[name] = item
    return out


def parse_settings(value: object, base: Settings | None = None,
                   previous: Settings | None = None) -> tuple[Settings, list[str]]:
    """Settings from a client's object, starting from `base` (defaults when None):
    keys that are absent keep their value. Returns the settings and one warning for
    each value that was ignored. A malformed `cint.cluster` keeps `previous`'s (the
    settings in force: a typo must not silently move runs off a cluster or onto one)."""
    settings = base or Settings()
    warnings: list[str] = []
    flat = _flatten(value)
    changes: dict[str, object] = {}

    if "targets" in flat:
        targets = flat["targets"]
        if targets is None:
            changes["targets"] = DEFAULT_TARGETS
        elif isinstance(targets, str):
            targets = [targets]
        if isinstance(targets, (list, tuple)):
            known = tuple(t for t in targets if isinstance(t, str) and t in EXECUTOR_NAMES)
            unknown = [t for t in targets if t not in known]
            if unknown:
                warnings.append(f"cint.targets: unknown executors {unknown} ignored "
                                f"(known: {', '.join(EXECUTOR_NAMES)})")
            changes["targets"] = known
        elif targets is not None:
            warnings.append(f"cint.targets: expected a list of executor names, got {targets!r}")

    if "fuel" in flat:
        fuel = flat["fuel"]
        if fuel is None or (isinstance(fuel, str) and fuel.strip().lower() in ("", "null", "none", "unlimited")):
            changes["fuel"] = None
        elif isinstance(fuel, (int, float)) and not isinstance(fuel, bool) and fuel >= 0 and int(fuel) == fuel:
            changes["fuel"] = int(fuel)
        else:
            warnings.append(f"cint.fuel: expected a non-negative integer or null, got {fuel!r}")

    if "run.timeLimit" in flat:
        limit = flat["run.timeLimit"]
        if limit is None:
            changes["time_limit"] = Settings.time_limit
        elif isinstance(limit, (int, float)) and not isinstance(limit, bool) and limit > 0:
            changes["time_limit"] = float(limit)
        else:
            warnings.append(f"cint.run.timeLimit: expected a positive number of seconds, got {limit!r}")

    for key in ("inlayHints.stepOrdinals", "inlayHints"):
        if key in flat:
            on = flat[key]
            if isinstance(on, bool):
                changes["step_ordinals"] = on
            elif on is not None:
                warnings.append(f"cint.{key}: expected true or false, got {on!r}")
            break

    if "c17.compiler" in flat:
        compiler = flat["c17.compiler"]
        if compiler is None or compiler == "":
            changes["c17_compiler"] = None
        elif isinstance(compiler, str):
            accepted, warning = compiler_setting(compiler)
            changes["c17_compiler"] = accepted
            if warning is not None:
                warnings.append(warning)
        else:
            warnings.append(f"cint.c17.compiler: expected a command name or path, got {compiler!r}")

    if "c17.threads" in flat:
        threads = flat["c17.threads"]
        if threads is None:
            changes["c17_threads"] = None
        elif (isinstance(threads, (int, float)) and not isinstance(threads, bool) and 1 <= threads <= 1024
              and int(threads) == threads):
            changes["c17_threads"] = int(threads)
        else:
            warnings.append(f"cint.c17.threads: expected a whole number of threads from 1 to 1024 or null, "
                            f"got {threads!r}")

    if "cluster" in flat:
        cluster = flat["cluster"]
        if cluster is None or (isinstance(cluster, str) and cluster.strip() == ""):
            changes["cluster"] = None
        elif _cluster_problem(cluster) is None:  # the façade reads the address: no Dask needed
            changes["cluster"] = cluster.strip()
        else:
            if previous is not None:
                changes["cluster"] = previous.cluster
            warnings.append(f"cint.cluster: expected \"\" (no cluster), \"local:N\" (N worker processes here, 1 to "
                            f"64), \"tcp://HOST:PORT\" or \"tls://HOST:PORT\" (a Dask scheduler), got {cluster!r}")

    if "trace.arrays" in flat or "trace.arrayLimit" in flat:
        # Only here: the fast start (prelude.py) reads the settings before any of the
        # run layer is imported.
        from ..exec.selection import ARRAY_LIMIT, ArraySelection
    if "trace.arrays" in flat:
        arrays = flat["trace.arrays"]
        if isinstance(arrays, (list, tuple)) and all(isinstance(name, str) for name in arrays):
            arrays = ",".join(arrays) if arrays else "none"
        if arrays is None:
            changes["trace_arrays"] = None
        elif isinstance(arrays, str) and arrays.strip() in ("none", ""):
            changes["trace_arrays"] = ()
        else:
            try:
                if not isinstance(arrays, str):
                    raise ValueError(arrays)
                names = ArraySelection.parse(arrays).names  # "all": None
                changes["trace_arrays"] = None if names is None else tuple(sorted(names))
            except ValueError:
                warnings.append(f"cint.trace.arrays: expected \"all\", \"none\" or a list of array parameters' "
                                f"names (\"v\", \"diffuse.v\"), got {flat['trace.arrays']!r}")

    if "trace.arrayLimit" in flat:
        limit = flat["trace.arrayLimit"]
        if limit is None:
            changes["trace_array_limit"] = TRACE_ARRAY_LIMIT
        elif (isinstance(limit, (int, float)) and not isinstance(limit, bool) and 1 <= limit <= ARRAY_LIMIT
              and int(limit) == limit):
            changes["trace_array_limit"] = int(limit)
        else:
            warnings.append(f"cint.trace.arrayLimit: expected a whole number of elements from 1 to {ARRAY_LIMIT} "
                            f"or null, got {limit!r}")

    return replace(settings, **changes), warnings


def _cluster_problem(address: object) -> str | None:
    # Imported here: the fast start (prelude.py) reads the settings before anything
    # of the run layer is needed, and it is 20-50 ms of imports.
    from ..running.run import cluster_problem

    return cluster_problem(address)
