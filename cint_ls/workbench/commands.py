"""The workbench's commands (`:load`, `:run`, `:fuel`, ...), a part of the session
(session.py) kept apart so that each can be read in one sitting."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Protocol

from ..exec.words import counted as counted_words
from ..ir import nodes as ir
from ..syntax import Severity, ast, parse_source
from ..syntax.report import render_diagnostic
from .program import SESSION, Assembly, Piece, Source, expression_piece, report, unqualify
from .values import Answer, Declared, Variable, _errors, assemble


class Session(Protocol):
    """What the commands use of the session (session.py's Session)."""

    fuel: int | None
    executor: str
    dispatched: list[int]
    gpu: Any
    number: int
    revision: int
    declared: dict[str, Declared]
    variables: dict[str, Variable]
    modules: dict[str, str]
    owner: dict[str, str]
    inputs: list[Source]

    def reset(self) -> None: ...
    def _cint(self, text: str) -> Answer: ...
    def _build(self, declared: dict[str, Declared], variables: dict[str, Variable],
               statements: Source | Piece | None, focus: str | None = None) -> tuple[Assembly, Any]: ...
    def _located_diagnostics(self, assembly: Assembly, problems: list[Any]) -> str: ...
    def _shown(self, variable: Variable) -> str: ...

HELP = """\
Inputs: a kernel or function declaration; a variable declaration (`I64 total = 3;`);
statements, run as one entry (`scale(a, 2, b);`); an expression, evaluated (`total * 2`).
Commands:
  :load FILE            load a module's kernels and functions (call them as `budget.run()`)
  :run CALL [--check E] run a call as an entry; --check compares it with executor E
  :fuel N | :fuel none  a fuel budget per entry
  :executor E           cpu-sir-interp, cpu-c17 (dispatches' work-items in C) or gpu-cuda
                        (on the GPU, or the simulated device; --device auto|cuda|sim)
  :type EXPR            the type of an expression
  :steps KERNEL         the counted operations of a kernel, with their step ordinals
  :vars                 the session's variables
  :reset                forget everything
  :help                 this text
  :quit                 leave (Ctrl-D)
"""


def command(session: Session, line: str) -> Answer:
    """One `:command` line: its answer (settings and queries take no input number)."""
    try:
        words = shlex.split(line)
    except ValueError as error:
        return Answer(f"error: {error}\n", error=True, counted=False)
    name, args = words[0], words[1:]
    if name in (":quit", ":q", ":exit"):
        return Answer(counted=False, quit=True)
    if name == ":help":
        return Answer(HELP, counted=False)
    if name == ":fuel":
        return _fuel(session, args)
    if name == ":executor":
        return _executor(session, args)
    if name == ":reset":
        session.reset()
        return Answer("the session is empty\n", counted=False)
    if name == ":vars":
        return Answer("".join(session._shown(v) for v in session.variables.values()) or "no variables\n",
                      counted=False)
    if name == ":load":
        if len(args) != 1:
            return Answer("error: :load FILE\n", error=True, counted=False)
        return _load(session, Path(args[0]))
    if name == ":type":
        return _type(session, line[len(":type"):].strip())
    if name == ":steps":
        return _steps(session, args)
    if name == ":run":
        return _run(session, line[len(":run"):].strip())
    return Answer(f"error: unknown command {name} (:help lists them)\n", error=True, counted=False)

def _executor(session: Session, args: list[str]) -> Answer:
    if not args:
        on, reference = session.dispatched
        where = {"cpu-c17": "in C", "gpu-cuda": "on the device"}.get(session.executor)
        counted = f" ({counted_words(on, 'dispatch')} {where}, {reference} on the reference: a fault, fuel or a " \
            "fold's overflow is found there)" if where else ""
        device = f"; on {session.gpu.description or session.gpu.forecast()}" \
            if session.executor == "gpu-cuda" and session.gpu is not None else ""
        return Answer(f"executor: {session.executor}{device}{counted}\n", counted=False)
    device = "auto"
    if len(args) == 3 and args[0] == "gpu-cuda" and args[1] == "--device" and args[2] in ("auto", "cuda", "sim"):
        device = args[2]
    elif len(args) != 1 or args[0] not in ("cpu-sir-interp", "cpu-c17", "gpu-cuda"):
        return Answer("error: :executor cpu-sir-interp | cpu-c17 | gpu-cuda [--device auto|cuda|sim]\n",
                      error=True, counted=False)
    if args[0] != "cpu-sir-interp":
        from ..exec.c17.build import NoCompiler, find_compiler

        try:
            find_compiler()
        except NoCompiler as error:
            whose = "gpu-cuda's host" if args[0] == "gpu-cuda" else "cpu-c17"
            return Answer(f"error: {args[0]} cannot run here: {whose} needs a C compiler: {error}\n", error=True,
                          counted=False)
    said = ""
    if args[0] == "gpu-cuda":
        from ..exec.cuda.runner import GpuDevice
        from ..exec.executors import ExecutorUnavailable

        gpu = GpuDevice(device)
        try:
            said = f"; on {gpu.forecast()}"
        except ExecutorUnavailable as error:
            return Answer(f"error: {error}\n", error=True, counted=False)
        if session.gpu is not None:
            session.gpu.close()
        session.gpu = gpu
    session.executor = args[0]
    if session.executor == "cpu-sir-interp":
        return Answer(f"executor: {session.executor}\n", counted=False)
    return Answer(f"executor: {session.executor} (each dispatch's work-items; the session stays in the host){said}\n",
                  counted=False)

def _fuel(session: Session, args: list[str]) -> Answer:
    if len(args) != 1 or not (args[0] == "none" or args[0].isdigit()):
        return Answer("error: :fuel N (a whole number of units) or :fuel none\n", error=True, counted=False)
    session.fuel = None if args[0] == "none" else int(args[0])
    return Answer("fuel: no budget\n" if session.fuel is None else f"fuel: {session.fuel} units per entry\n",
                  counted=False)

def _load(session: Session, path: Path) -> Answer:
    try:
        data = path.read_bytes()
    except OSError as error:
        return Answer(f"error: cannot read {path}: {error.strerror or error}\n", error=True, counted=False)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Answer(f"error: {path} is not UTF-8 text (a .ci file is)\n", error=True, counted=False)
    module_name = path.stem
    if not module_name.isidentifier():
        return Answer(f"error: {path.name}: a module's name is its file's stem, which must be an identifier\n",
                      error=True, counted=False)
    parsed = parse_source(text, str(path))
    errors = [d for d in parsed.diagnostics if d.severity == Severity.ERROR]
    if errors:
        return Answer("".join(render_diagnostic(parsed.source, d) for d in errors[:5]), error=True,
                      counted=False)
    source = Source(path.name, text, module_name)
    trial = dict(session.declared)
    owner = dict(session.owner)
    for item in parsed.module.items:
        if isinstance(item, (ast.KernelDef, ast.FunctionDef)):
            clash = owner.get(item.name.text, SESSION) if item.name.text in trial else None
            if clash is not None and clash != module_name:  # reloading a module replaces its own names
                where = "the session" if clash == SESSION else f"module {clash}"
                return Answer(f"error: {path.name}: `{item.name.text}` is declared by {where} already (modules "
                              "share one namespace in a session)\n", error=True, counted=False)
            trial.pop(item.name.text, None)
            trial[item.name.text] = Declared(item.name.text, Piece(source, item.span.start_byte,
                                                                    item.span.end_byte))
            owner[item.name.text] = module_name
    assembly, built = session._build(trial, session.variables, None)
    problems = _errors(built)
    if problems:
        return Answer(session._located_diagnostics(assembly, problems), error=True, counted=False)
    session.declared, session.owner = trial, owner
    session.modules[module_name] = str(path)
    skipped = len(parsed.module.statements)
    note = f"; its {skipped} top-level statement{'s' if skipped != 1 else ''} not run" if skipped else ""
    return Answer(f"loaded {module_name} ({path}){note}\n")

def _type(session: Session, text: str) -> Answer:
    if not text:
        return Answer("error: :type EXPR\n", error=True, counted=False)
    piece = expression_piece(f"entry {session.number}", unqualify(text, set(session.modules)))
    assembly, built = session._build(session.declared, session.variables, piece)
    problems = _errors(built)
    if problems:
        return Answer(session._located_diagnostics(assembly, problems), error=True, counted=False)
    printed = [s for s in built.program.entry.body if isinstance(s, ir.Print)][-1]
    t = next(p.type for p in printed.parts if isinstance(p, ir.Expr))
    return Answer(f"{text} : {t}\n", counted=False)

def _steps(session: Session, args: list[str]) -> Answer:
    if len(args) != 1:
        return Answer("error: :steps KERNEL\n", error=True, counted=False)
    name = args[0].split(".")[-1]
    assembly, built = session._build(session.declared, session.variables, None)
    kernel = built.program.kernels.get(name) if built.program is not None else None
    if kernel is None:
        return Answer(f"error: no kernel {args[0]} in the session\n", error=True, counted=False)
    from ..ir.printer import format_steps

    lines = [f"steps of {args[0]}: {len(kernel.counted)} counted operations, in evaluation order"]
    for c in sorted(kernel.counted, key=lambda c: c.index):
        located = assembly.locate(c.span)
        where = f"{located[0].label}:{located[1].line}:{located[1].column}" if located else str(c.span)
        lines.append(f"  {format_steps(c.steps):<12} {where:<16} {c.op_id}")
    return Answer("\n".join(lines) + "\n", counted=False)

def _run(session: Session, text: str) -> Answer:
    """`:run CALL [--check EXECUTOR]`: the call as an entry (its value shown, if it
    has one); with --check, also on EXECUTOR, compared as `cint run --check` does."""
    check = None
    if "--check" in text.split():
        words = text.split()
        at = words.index("--check")
        if at + 1 >= len(words):
            return Answer("error: :run CALL --check EXECUTOR\n", error=True, counted=False)
        check = words[at + 1]
        text = " ".join(words[:at] + words[at + 2:])
    if not text:
        return Answer("error: :run CALL [--check EXECUTOR]\n", error=True, counted=False)
    if check is None:
        return session._cint(text if text.rstrip().endswith(";") else text + ";")
    return _checked_run(session, text.rstrip(";"), check)

def _checked_run(session: Session, call: str, check: str) -> Answer:
    from ..exec.executors import EXECUTOR_NAMES
    from ..running.run import RunRequest, run

    if check not in EXECUTOR_NAMES:
        return Answer(f"error: --check takes one of {', '.join(EXECUTOR_NAMES)}\n", error=True, counted=False)
    source = Source(f"entry {session.number}", call + ";")
    assembly = assemble(session.declared, session.variables,
                        Source(source.label, unqualify(source.text, set(session.modules))), with_values=True)
    outcome = run(RunRequest(f"{SESSION}.ci", assembly.text, fuel=session.fuel, check=check, learn=False))
    session.inputs.append(source)
    if outcome.diagnostics:
        return Answer(session._located_diagnostics(assembly, outcome.diagnostics), error=True)
    if outcome.result is None:
        return Answer(f"error: {outcome.error}\n", error=True)
    text = outcome.result.output
    if outcome.result.fault is not None:
        text += report(assembly, outcome.result.fault, session.owner, f"{SESSION}@r{session.revision}")
    if outcome.checked is not None and outcome.checked.result is None:
        text += f"check: {check} gave no result: {outcome.checked.error}\n"
    elif outcome.comparison is not None:
        text += outcome.comparison.line + "\n"
    return Answer(text, error=outcome.result.fault is not None)
