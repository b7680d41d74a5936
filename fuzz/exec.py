"""The differential fuzzer of the executors (issue 13, "Fuzzing that keeps running").

Generates well-typed programs (`fuzz/gen.py`) and runs each through the run façade
(`cint_ls.running.run.run` with `check="cpu-sir-interp"`) on cpu-c17 and on gpu-cuda's
simulated device, in several configurations, and counts every comparison that does not
agree (outputs, fuel and published data at every boundary, the fault record field by
field at the end):

- cpu-c17 without a budget, and with a budget below what the program needs (E_FUEL);
- gpu-cuda (device "sim"): block size 32 in ascending order, block size 256 in
  descending order, and a shuffled order (block size 32 or 256, a random seed), one
  without a budget and two with one;
- a program whose finale is a fault found late (a low work-item faults while higher
  ones loop for ever, issue 28): also cpu-c17 on a pool of 2, 3 or 7 threads in chunks
  of 1 to 16 work-items, and gpu-cuda's adversarial and interleaved schedules, each
  without a budget (such a program hangs where the fault is found too late).

Each program first runs on the reference (in process, with a large budget): that finds
programs the checker rejects (a bug of the generator, counted apart, aim 0), the fuel
the program needs (the budgets are drawn below it, some at a dispatch's boundary), and
programs that would run too long (skipped). gpu-cuda refusing a program by its
capability profile is not a mismatch: it is counted, by capability.

    python -m fuzz.exec --seconds 600 --seed 1 [--jobs 2] [--out DIR]
    python -m fuzz.exec --replay DIR/mismatch_1_17.ci
    python -m fuzz.exec --show 1:17                  # print the program of seed 1, index 17
    python -m fuzz.exec --seconds 600 --device cuda  # gpu-cuda on a GPU (cuda-python)

Each program runs in a worker process (`--jobs`, 1 by default) with a time limit
(`--program-timeout`): a worker that takes longer is stopped and its program counted as
a hang. A mismatching, crashing (a traceback, "a defect of cint-ls", a crashed child),
hanging or rejected program is written to DIR (default `fuzz-out`) as NAME.ci with
NAME.json (the configurations and what went wrong); `--replay` reruns it. The C compile
cache is a private temporary directory (removed at the end) unless `--cache DIR`.
Exit status: 0, or 1 when anything mismatched, crashed or hung (rejects are reported but
do not fail the run: the test asserts them).
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import random
import shutil
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import wait
from pathlib import Path

from fuzz.gen import PATH, generate

REFERENCE = "cpu-sir-interp"
PRE_RUN_FUEL = 400_000  # a program that needs more is skipped (too slow to be worth it)


@dataclass
class Config:
    executor: str
    fuel: int | None
    options: dict = field(default_factory=dict)

    def describe(self) -> str:
        opts = "".join(f" {k}={v}" for k, v in self.options.items() if k != "device")
        return f"{self.executor}{opts} fuel={self.fuel if self.fuel is not None else 'none'}"


def configs_for(rng: random.Random, fuel: int, boundaries: list[int], device: str = "sim",
                late: bool = False) -> list[Config]:
    """The configurations of one program that needs `fuel` units (boundaries: the fuel
    consumed at each published dispatch); gpu-cuda runs on `device` ("sim", or "cuda":
    a GPU, where the order options do not apply). A program whose finale is a fault
    found late (`late`: a loop that never ends above it) also runs on cpu-c17's pool in
    small chunks and on the interleaving schedules, where a fault found too late hangs."""
    def budget() -> int | None:
        if fuel <= 1:
            return None
        if boundaries and rng.random() < 0.4:  # at a dispatch's entry check 9, give or take
            return max(1, min(fuel - 1, rng.choice(boundaries) + rng.randint(-2, 2)))
        return rng.randint(1, fuel - 1)

    sim = {"device": device}
    return [
        Config("cpu-c17", None),
        Config("cpu-c17", budget()),
        Config("gpu-cuda", None, {**sim, "block_size": 32, "order": "ascending"}),
        Config("gpu-cuda", budget(), {**sim, "block_size": 256, "order": "descending"}),
        Config("gpu-cuda", budget() if rng.random() < 0.5 else None,
               {**sim, "block_size": rng.choice([32, 256]), "order": "shuffled", "seed": rng.randrange(1 << 30)}),
    ] + ([
        Config("cpu-c17", None, {"threads": rng.choice([2, 3, 7]), "parallel_min": 1,
                                 "chunk_min": rng.choice([1, 4, 16])}),
        Config("gpu-cuda", None, {**sim, "block_size": 32, "order": "adversarial"}),
        Config("gpu-cuda", None, {**sim, "block_size": rng.choice([32, 256]), "order": "interleaved",
                                  "seed": rng.randrange(1 << 30)}),
    ] if late and device == "sim" else [])


def _crash_text(text: str | None) -> bool:
    return text is not None and not text.startswith("no C compiler")


class EnvironmentProblem(Exception):
    """This machine cannot run the fuzzer (no C compiler): not a finding."""


def run_config(text: str, config: Config) -> dict:
    """One run through the façade, checked against the reference."""
    from cint_ls.running.run import RunRequest, run

    outcome = run(RunRequest(PATH, text, config.executor, config.fuel,
                             options={config.executor: dict(config.options)}, check=REFERENCE))
    record = {"config": asdict(config), "codes": {}}
    if outcome.diagnostics:
        if outcome.refused:
            d = outcome.diagnostics[0]
            record.update(status="refused", capability=d.capability or "?", line=d.message)
        else:
            d = outcome.diagnostics[0]
            record.update(status="reject", line=f"{d.code} at {d.span.line}:{d.span.column}: {d.message}")
        return record
    if outcome.error is not None:
        if outcome.error.startswith("no C compiler") or "the simulated device needs none" in outcome.error:
            raise EnvironmentProblem(outcome.error)
        record.update(status="crash", line=f"{config.executor}: {outcome.error}")
        return record
    record["codes"][config.executor] = outcome.result.fault.code if outcome.result.fault else "ok"
    checked = outcome.checked
    if checked is None or checked.result is None:
        why = (checked.error if checked is not None else None) or "the reference gave no result"
        record.update(status="crash", line=f"{REFERENCE}: {why}")
        return record
    record["codes"][REFERENCE] = checked.result.fault.code if checked.result.fault else "ok"
    comparison = outcome.comparison
    if comparison is None or not comparison.agree:
        record.update(status="mismatch", line=comparison.line if comparison else "no comparison")
        record["summaries"] = [outcome.summary, checked.summary]
        record["reports"] = [outcome.report, checked.report]
        return record
    record.update(status="agree", line=comparison.line)
    return record


def fuzz_one(seed: str, configs: list[Config] | None = None, device: str = "sim") -> dict:
    """Generate (or take) one program and run it in every configuration."""
    from cint_ls.running.run import RunRequest, run

    started = time.monotonic()
    program = generate(seed)
    out = {"seed": seed, "gpu": program.gpu, "finale": program.finale, "risk": program.risk,
           "dispatches": program.dispatches, "runs": [], "status": "ok"}
    try:
        pre = run(RunRequest(PATH, program.text, REFERENCE, PRE_RUN_FUEL, trace=True))
    except Exception:  # noqa: BLE001 - a crash of the reference is a finding
        out.update(status="crash", line=f"{REFERENCE} raised:\n{traceback.format_exc()}")
        return out
    if pre.diagnostics:
        d = pre.diagnostics[0]
        out.update(status="reject", line=f"{d.code} at {d.span.line}:{d.span.column}: {d.message}")
        return out
    if pre.result is None:
        out.update(status="crash", line=f"{REFERENCE}: {pre.error}")
        return out
    fault = pre.result.fault
    if fault is not None and fault.code == "E_FUEL" and pre.result.fuel_consumed >= PRE_RUN_FUEL:
        out.update(status="long")
        return out
    out["reference"] = fault.code if fault else "ok"
    out["boundaries"] = len(pre.result.boundaries() or [])
    fuel = pre.result.fuel_consumed
    marks = [b.fuel for b in (pre.result.boundaries() or [])]
    rng = random.Random(f"configs:{seed}")
    if configs is None:
        configs = configs_for(rng, fuel, marks, device, late=program.finale == "late")
    gpu_refused = False
    for config in configs:
        if config.executor == "gpu-cuda" and gpu_refused:
            continue
        try:
            record = run_config(program.text, config)
        except EnvironmentProblem:
            raise
        except Exception:  # noqa: BLE001 - a crash of the façade is a finding
            record = {"config": asdict(config), "codes": {}, "status": "crash",
                      "line": f"the façade raised:\n{traceback.format_exc()}"}
        out["runs"].append(record)
        if record["status"] == "refused":
            gpu_refused = True
            out["refused"] = record["capability"]
        if record["status"] in ("mismatch", "crash", "reject") and out["status"] == "ok":
            out.update(status=record["status"], line=f"{Config(**record['config']).describe()}: {record['line']}")
    out["seconds"] = time.monotonic() - started
    return out


# ---------------------------------------------------------------- workers

def _worker(conn, cache: str | None, device: str) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the run and kills its
    # workers (`fuzz`); a worker that took it itself would die mid-program.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if cache:
        os.environ["XDG_CACHE_HOME"] = cache
    while True:
        try:
            seed = conn.recv()
        except EOFError:
            return
        if seed is None:
            return
        try:
            conn.send(fuzz_one(seed, device=device))
        except EnvironmentProblem as problem:
            conn.send({"seed": seed, "status": "environment", "line": str(problem)})
        except Exception:  # noqa: BLE001
            conn.send({"seed": seed, "status": "crash", "line": f"the fuzzer raised:\n{traceback.format_exc()}"})


class Worker:
    def __init__(self, ctx, cache: str | None, device: str = "sim") -> None:
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child, cache, device), daemon=True)
        self.proc.start()
        child.close()
        self.seed: str | None = None
        self.started = 0.0

    def submit(self, seed: str) -> None:
        self.seed, self.started = seed, time.monotonic()
        self.conn.send(seed)

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.kill()

    def kill(self) -> None:
        self.proc.kill()
        self.proc.join()


@dataclass
class Stats:
    programs: int = 0
    runs: int = 0
    mismatches: int = 0  # checked runs that differ from the reference
    crashes: int = 0  # runs with no result (a crash, "a defect of cint-ls"), or a fuzzer exception
    bad_programs: collections.Counter = field(default_factory=collections.Counter)  # by status
    hangs: int = 0
    rejects: int = 0
    long: int = 0
    refused: int = 0
    interrupted: bool = False  # stopped by Ctrl-C before its time or its limit
    gpu_programs: int = 0  # generated inside gpu-cuda's profile
    gpu_ran: int = 0  # programs gpu-cuda ran
    by_capability: collections.Counter = field(default_factory=collections.Counter)
    codes: dict = field(default_factory=lambda: collections.defaultdict(collections.Counter))
    finales: collections.Counter = field(default_factory=collections.Counter)
    boundaries: int = 0
    findings: list = field(default_factory=list)  # (status, seed, line)

    def add(self, result: dict) -> None:
        status = result["status"]
        if status == "environment":
            return
        self.programs += 1
        if status == "reject":
            self.rejects += 1
        elif status == "long":
            self.long += 1
        elif status == "hang":
            self.hangs += 1
        if result.get("gpu"):
            self.gpu_programs += 1
        self.finales[(result.get("finale"), result.get("reference"))] += 1
        self.boundaries += result.get("boundaries", 0)
        for run in result.get("runs", []):
            if run["status"] == "refused":
                self.refused += 1
                self.by_capability[run["capability"]] += 1
                continue
            self.runs += 1
            if run["status"] == "mismatch":
                self.mismatches += 1
            elif run["status"] == "crash":
                self.crashes += 1
            for executor, code in run["codes"].items():
                self.codes[executor][code] += 1
        if any(r["config"]["executor"] == "gpu-cuda" and r["status"] != "refused" for r in result.get("runs", [])):
            self.gpu_ran += 1
        if status == "crash" and not result.get("runs"):
            self.crashes += 1
        if status in ("mismatch", "crash", "hang", "reject"):
            self.bad_programs[status] += 1
            self.findings.append((status, result["seed"], result.get("line", "")))

    @property
    def failed(self) -> bool:
        return bool(self.mismatches or self.crashes or self.hangs)

    def report(self, seconds: float, machine: str) -> str:
        lines = [f"{'interrupted' if self.interrupted else 'done'}: {machine}",
                 (f"programs tried: {self.programs} in {seconds:.0f} s ({self.boundaries} boundaries on the "
                 f"reference; {self.long} skipped as too long)"),
                 f"checked runs: {self.runs} (each compared with {REFERENCE} at every boundary)",
                 f"mismatches: {self.mismatches} runs ({self.bad_programs['mismatch']} programs)",
                 f"crashes: {self.crashes} runs ({self.bad_programs['crash']} programs); hangs: {self.hangs}",
                 f"generator rejects: {self.rejects}",
                 (f"gpu-cuda: ran {self.gpu_ran} programs; refused {self.refused} "
                 f"({', '.join(f'{c} {n}' for c, n in self.by_capability.most_common()) or 'none'}); "
                 f"{self.gpu_programs} programs were generated inside its profile")]
        lines.append("faults seen (per executor, one per checked run):")
        for executor in sorted(self.codes):
            counts = self.codes[executor]
            lines.append(f"  {executor}: " + ", ".join(f"{c} {n}" for c, n in sorted(counts.items())))
        finales = collections.Counter()
        for (finale, code), n in self.finales.items():
            finales[f"{finale}->{code}"] += n
        lines.append("finales (planned -> reference's fault): "
                     + ", ".join(f"{k} {n}" for k, n in sorted(finales.items())))
        groups: dict[str, list[str]] = {}
        for status, seed, line in self.findings:
            groups.setdefault(f"{status.upper()}: {signature(line)}", []).append(seed)
        if groups:
            lines.append(f"findings: {len(self.findings)} programs, {len(groups)} distinct (by their first line, "
                         "numbers and paths left out):")
        for what, seeds in groups.items():
            shown = ", ".join(seeds[:5]) + (f", ... ({len(seeds)} programs)" if len(seeds) > 5 else "")
            lines.append(f"  {what[:300]}\n    seeds {shown}")
        return "\n".join(lines)


def signature(line: str) -> str:
    """A finding's first line with numbers, hashes and paths left out, to group findings."""
    import re

    first = line.splitlines()[0] if line else ""
    first = re.sub(r"(/[^\s:]+)+", "PATH", first)
    first = re.sub(r"\b0x[0-9a-fA-F]+\b|\b[0-9a-f]{16,}\b|\b\d+\b", "N", first)
    return first


def save_finding(out_dir: Path, result: dict) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    seed = result["seed"]
    name = f"{result['status']}_{seed.replace(':', '_')}"
    name = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)
    (out_dir / f"{name}.ci").write_text(generate(seed).text)
    (out_dir / f"{name}.json").write_text(json.dumps(result, indent=2, default=str))
    return out_dir / f"{name}.ci"


def fuzz(seconds: float, seed: str, jobs: int = 1, out_dir: Path | None = None, cache: str | None = None,
         program_timeout: float = 300.0, progress=None, limit: int | None = None, device: str = "sim") -> Stats:
    """Run programs `seed:0`, `seed:1`, ... until `seconds` have passed (or `limit`
    programs ran); returns the statistics. `progress(stats, elapsed)` is called now and
    then."""
    own_cache = cache is None
    cache = cache or tempfile.mkdtemp(prefix="cint-fuzz-cache-")
    ctx = multiprocessing.get_context("fork")
    workers = [Worker(ctx, cache, device) for _ in range(max(1, jobs))]
    stats = Stats()
    started = time.monotonic()
    deadline = started + seconds
    index = 0
    last_progress = started
    try:
        while True:
            now = time.monotonic()
            for w in workers:
                if w.seed is None and now < deadline and (limit is None or index < limit):
                    w.submit(f"{seed}:{index}")
                    index += 1
            busy = [w for w in workers if w.seed is not None]
            if not busy:
                break
            ready = wait([w.conn for w in busy], timeout=1.0)
            now = time.monotonic()
            for w in busy:
                result = None
                if w.conn in ready:
                    try:
                        result = w.conn.recv()
                    except (EOFError, OSError):
                        result = {"seed": w.seed, "status": "crash", "line": "the worker process died"}
                        w.kill()
                        workers[workers.index(w)] = w = Worker(ctx, cache, device)
                elif now - w.started > program_timeout:
                    result = {"seed": w.seed, "status": "hang",
                              "line": f"no answer after {program_timeout:.0f} s"}
                    w.kill()
                    workers[workers.index(w)] = w = Worker(ctx, cache, device)
                if result is None:
                    continue
                w.seed = None
                if result["status"] == "environment":
                    raise EnvironmentProblem(result["line"])
                stats.add(result)
                if result["status"] in ("mismatch", "crash", "hang", "reject") and out_dir is not None:
                    path = save_finding(out_dir, result)
                    print(f"{result['status']}: seed {result['seed']} -> {path}: "
                          f"{result.get('line', '').splitlines()[0] if result.get('line') else ''}",
                          file=sys.stderr, flush=True)
            if progress is not None and now - last_progress >= 60:
                last_progress = now
                progress(stats, now - started)
    except KeyboardInterrupt:  # Ctrl-C: the programs that finished are the run's result
        stats.interrupted = True
    finally:
        for w in workers:
            if w.seed is not None or stats.interrupted:
                w.kill()
            else:
                w.stop()
        if own_cache:
            shutil.rmtree(cache, ignore_errors=True)
    return stats


# ---------------------------------------------------------------- replay

def replay(path: Path) -> int:
    text = path.read_text()
    meta_path = path.with_suffix(".json")
    configs = None
    seed = None
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        seed = meta.get("seed")
        runs = meta.get("runs") or []
        if runs:
            configs = [Config(**r["config"]) for r in runs]
    if configs is None:
        configs = configs_for(random.Random(f"configs:{seed}"), 10 ** 6, []) if seed else [
            Config("cpu-c17", None), Config("gpu-cuda", None, {"device": "sim", "block_size": 32}),
            Config("gpu-cuda", None, {"device": "sim", "block_size": 256, "order": "descending"})]
    if seed is not None and generate(seed).text != text:
        print(f"note: {path} is not the program of seed {seed} any more (edited, or the generator "
              "changed); replaying the file", file=sys.stderr)
    bad = 0
    for config in configs:
        try:
            record = run_config(text, config)
        except Exception:  # noqa: BLE001
            record = {"status": "crash", "line": traceback.format_exc()}
        print(f"{config.describe()}: {record['status']}: {record.get('line', '')}")
        for report in record.get("reports") or []:
            if report:
                print(report)
        bad += record["status"] in ("mismatch", "crash", "reject")
    return 1 if bad else 0


# ---------------------------------------------------------------- command line

def machine_line(jobs: int) -> str:
    try:
        load = os.getloadavg()
        load_text = f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    except OSError:
        load_text = "load unknown"
    return f"machine: {os.cpu_count()} CPUs, {load_text}; {jobs} job(s)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to run (default 60)")
    parser.add_argument("--seed", default="1", help="the run's seed: programs are SEED:0, SEED:1, ...")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--out", default="fuzz-out", help="where failing programs are written (default fuzz-out)")
    parser.add_argument("--cache", default=None, help="the C compile cache (default: a private temporary one)")
    parser.add_argument("--program-timeout", type=float, default=300.0,
                        help="seconds one program may take in all its configurations (default 300)")
    parser.add_argument("--limit", type=int, default=None, help="stop after this many programs")
    parser.add_argument("--device", choices=("sim", "cuda"), default="sim",
                        help="gpu-cuda's device: the simulated one (default) or a GPU (needs cuda-python)")
    parser.add_argument("--replay", type=Path, help="rerun one written program (NAME.ci, with NAME.json)")
    parser.add_argument("--show", metavar="SEED:INDEX", help="print the program of one seed and index")
    args = parser.parse_args(argv)
    if args.show:
        print(generate(args.show).text, end="")
        return 0
    if args.replay:
        return replay(args.replay)
    header = (f"fuzz.exec: seed {args.seed}, {args.seconds:.0f} s budget, gpu-cuda on device {args.device}; "
              f"{machine_line(args.jobs)}")
    print(header, flush=True)

    def progress(stats: Stats, elapsed: float) -> None:
        print(f"[{elapsed:.0f} s] programs {stats.programs}, runs {stats.runs}, mismatches {stats.mismatches}, "
              f"crashes {stats.crashes}, hangs {stats.hangs}, rejects {stats.rejects}, "
              f"refused {stats.refused}", file=sys.stderr, flush=True)

    started = time.monotonic()
    try:
        stats = fuzz(args.seconds, args.seed, args.jobs, Path(args.out), args.cache, args.program_timeout,
                     progress, args.limit, args.device)
    except EnvironmentProblem as problem:
        print(f"fuzz.exec: cannot run: {problem}", file=sys.stderr)
        return 2
    sys.stderr.flush()
    print(stats.report(time.monotonic() - started, machine_line(args.jobs)), flush=True)
    return 1 if stats.failed else 0


if __name__ == "__main__":
    sys.exit(main())
