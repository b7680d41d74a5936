"""The workbench's session engine (issue 31): inputs in, the spec's answers out, no I/O.

A session keeps what SPEC-02P.1 7.1's host keeps between entries: its kernels and
functions (each declaration bumps the session's revision), its variables (scalars by
value, arrays by their storage) and the modules it loaded. Each input that runs is one
entry on cpu-sir-interp: the session's program (program.py) with the variables declared
first, of which only the input's statements run, in a frame holding the variables'
values; afterwards the frame's variables are the session's. So a faulted dispatch leaves
everything as the spec says the host observes it (nothing published, `total` keeps 5),
and a statement before the fault in the same input keeps its effect.

    Session().enter("I64 total = 3;")  ->  Answer(["total = 3 : I64"])
"""

from __future__ import annotations

import dataclasses
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..analysis.types import BoolType, FixedType, Type
from ..exec.interp import Machine
from ..exec.interp.compiler import ArrayBinding
from ..exec.runtime import CintFault
from ..exec.views import View
from ..ir import nodes as ir
from ..ir.build import build
from ..running.report import render
from ..syntax import Severity, ast, parse_source
from ..syntax.report import render_diagnostic
from ..syntax.source import SourceText
from ..vocabulary.values import format_value
from .program import SESSION, Assembly, Piece, Source, report_parts, unqualify

SHOWN_ELEMENTS = 10  # an array's elements listed after its declaration; the rest counted
HELP = """\
Inputs: a kernel or function declaration; a variable declaration (`I64 total = 3;`);
statements, run as one entry (`scale(a, 2, b);`); an expression, evaluated (`total * 2`).
Commands:
  :load FILE            load a module's kernels and functions (call them as `budget.run()`)
  :run CALL [--check E] run a call as an entry; --check compares it with executor E
  :fuel N | :fuel none  a fuel budget per entry
  :executor E           cpu-sir-interp, or cpu-c17 (dispatches' work-items in C)
  :type EXPR            the type of an expression
  :steps KERNEL         the counted operations of a kernel, with their step ordinals
  :vars                 the session's variables
  :reset                forget everything
  :help                 this text
  :quit                 leave (Ctrl-D)
"""


@dataclass
class Answer:
    """What an input gives back: text as the transcripts show it, and whether it was an
    error (a fault, a diagnostic, a bad command). `counted`: the input took a number."""

    text: str = ""
    error: bool = False
    counted: bool = True
    quit: bool = False
    value: Any = None  # an expression's value, for a notebook's rich display (a View for an array)


@dataclass
class Variable:
    name: str
    type: Type  # a scalar's type, or the element type of an array
    value: Any  # int / bool, or a View
    rank: int | None = None


@dataclass
class Declared:
    name: str
    piece: Piece


@dataclass
class Session:
    fuel: int | None = None
    executor: str = "cpu-sir-interp"  # where dispatches run their work-items (:executor)
    dispatched: list[int] = field(default_factory=lambda: [0, 0])  # with cpu-c17: in C, on the reference
    number: int = 1  # the next input's number: `ci[N]>`
    revision: int = 0
    declared: dict[str, Declared] = field(default_factory=dict)  # kernels and functions, in order
    variables: dict[str, Variable] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)  # a loaded module's name -> its file
    owner: dict[str, str] = field(default_factory=dict)  # a loaded declaration's name -> its module
    inputs: list[Source] = field(default_factory=list)

    # ---- the prompt's side

    @property
    def prompt(self) -> str:
        return f"ci[{self.number}]> "

    def enter(self, text: str) -> Answer:
        """One input: a command (`:load ...`) or cint."""
        stripped = text.strip()
        if not stripped:
            return Answer(counted=False)
        if stripped.startswith(":"):
            answer = self._command(stripped)
        else:
            answer = self._cint(text)
        if answer.counted:
            self.number += 1
        return answer

    # ---- cint inputs

    def _cint(self, text: str) -> Answer:
        named = self.variables.get(text.strip().rstrip(";").strip())
        if named is not None and isinstance(named.value, View):  # an array named alone: shown whole
            return Answer(self._shown(named), value=named.value)
        source = Source(f"entry {self.number}", text)
        bare = unqualify(text, set(self.modules))
        parsed = parse_source(bare, "entry.ci")
        errors = [d for d in parsed.diagnostics if d.severity == Severity.ERROR]
        module = parsed.module
        if errors:
            if not module.items and _expression_like(bare):
                return self._expression(source, bare)
            return Answer(_diagnostics(source, errors), error=True)
        if module.items and module.statements:
            return Answer(f"error: {source.label}: declare kernels and functions in an input of their own\n",
                          error=True)
        if module.items:
            return self._declare(source, bare, module)
        # A variable declared again replaces the session's (as at Python's prompt).
        again = {s.name.text for s in module.statements if isinstance(s, ast.VarDecl)}
        return self._statements(source, bare, replacing=again)

    def _declare(self, source: Source, bare: str, module: ast.Module) -> Answer:
        pieces = {}
        for item in module.items:
            if not isinstance(item, (ast.KernelDef, ast.FunctionDef)):
                return Answer(f"error: {source.label}: only kernels and functions are declared here\n", error=True)
            pieces[item.name.text] = Piece(Source(source.label, bare), item.span.start_byte, item.span.end_byte)
        trial = dict(self.declared)
        for name, piece in pieces.items():
            trial.pop(name, None)  # a redefinition replaces the old declaration
            trial[name] = Declared(name, piece)
        assembly, built = self._build(trial, self.variables, None)
        problems = _errors(built)
        if problems:
            return Answer(self._located_diagnostics(assembly, problems), error=True)
        self.declared = trial
        for name in pieces:
            self.owner.pop(name, None)
        self.revision += 1
        self.inputs.append(source)
        assert built.program is not None
        lines = []
        for name in pieces:
            if name in built.program.kernels:
                lines.append(f"{name}   revision {SESSION}@r{self.revision}")
            else:
                f = built.program.functions[name]
                params = ", ".join(str(t) for t in f.param_types)
                lines.append(f"{name} : ({params}) -> {f.return_type}   revision {SESSION}@r{self.revision}")
        return Answer("\n".join(lines) + "\n")

    def _statements(self, source: Source, bare: str, expression: bool = False,
                    replacing: set[str] = frozenset()) -> Answer:  # type: ignore[assignment]
        kept = {name: v for name, v in self.variables.items() if name not in replacing}
        assembly, built = self._build(self.declared, kept, Source(source.label, bare))
        problems = _errors(built)
        if problems:
            return Answer(self._located_diagnostics(assembly, problems), error=True)
        program = built.program
        assert program is not None
        entry = program.entry
        start = assembly.placed[-1].byte
        running = [s for s in entry.body if s.span.start_byte >= start]
        named = _entry_slots(entry)
        frame: list[Any] = [None] * entry.slot_count
        for name, slot in named.items():
            variable = kept.get(name)
            if variable is not None:
                frame[slot] = ArrayBinding(variable.value, variable.value) if isinstance(variable.value, View) \
                    else variable.value
        out: list[str] = []
        machine = Machine(program, self.fuel, out.append)
        runner = self._runner(program, machine)
        fault = None
        interrupted = False
        try:
            machine.compiler.block(running)(frame)
        except CintFault as error:
            fault = error.record(machine.fuel.consumed)
        except KeyboardInterrupt:  # Ctrl-C: the entry stops; what it did so far stays, as after a fault
            interrupted = True
        self.inputs.append(source)
        if runner is not None:
            self.dispatched[0] += runner.ran
            self.dispatched[1] += runner.fell_back
        before = set(self.variables)
        self._take_back(entry, named, frame)
        text = "".join(out)
        if interrupted:
            return Answer(text + "interrupted: the entry stopped; a dispatch in progress published nothing\n",
                          error=True)
        if fault is not None:
            the_source, record, stack = report_parts(assembly, fault, self.owner)
            report = render(the_source, record, revision=f"{SESSION}@r{self.revision}")
            report = _with_stack(report, stack)
            return Answer(text + report, error=True)
        if expression:
            return Answer(text)
        new = [name for name in self.variables if name not in before or name in replacing]
        return Answer(text + "".join(self._shown(self.variables[name]) for name in new))

    def _expression(self, source: Source, bare: str) -> Answer:
        """An expression's value: `= 5 : I64`."""
        wrapped = Source(source.label, '"{' + bare.strip().rstrip(";") + '}";')
        # The expression sits two columns to the right of where it was typed, less its indent.
        shift = 2 - (len(bare) - len(bare.lstrip()))
        assembly, built = self._build(self.declared, self.variables, wrapped)
        problems = _errors(built)
        if problems:
            return Answer(self._located_diagnostics(assembly, problems, shift=shift, text=bare), error=True)
        answer = self._statements(source, wrapped.text, expression=True)
        if answer.error:
            return answer
        assert built.program is not None
        printed = [s for s in built.program.entry.body if isinstance(s, ir.Print)][-1]
        t = next(p.type for p in printed.parts if isinstance(p, ir.Expr))
        return Answer(f"= {answer.text} : {t}\n")

    def _runner(self, program: ir.Program, machine: Machine) -> Any:
        """With `:executor cpu-c17`, the machine's dispatches run their work-items in C
        (exec/c17/runner.py); the entry's own statements stay on the machine, which keeps
        the session's variables."""
        if self.executor != "cpu-c17":
            return None
        from ..exec.c17.runner import C17Runner

        runner = C17Runner(program, machine.runner, lambda: machine.depth)
        machine.runner = runner
        return runner

    # ---- the program

    def _build(self, declared: dict[str, Declared], variables: dict[str, Variable],
               statements: Source | None) -> tuple[Assembly, Any]:
        assembly = Assembly()
        for item in declared.values():
            assembly.add(item.piece)
        for variable in variables.values():
            assembly.add_text(_declaration(variable))
        if statements is not None:
            assembly.add(Piece(statements, 0, len(statements.text.encode("utf-8"))))
        return assembly, build(assembly.text, f"{SESSION}.ci")

    def _take_back(self, entry: ir.Function, named: dict[str, int], frame: list[Any]) -> None:
        """The entry's variables after it ran (or faulted) are the session's."""
        from ..ir.slots import slots

        info = slots(entry)
        for name, slot in named.items():
            value = frame[slot]
            if value is None:
                continue
            s = info[slot]
            if isinstance(value, ArrayBinding):
                assert s.type is not None
                self.variables[name] = Variable(name, s.type, value.read, s.rank)
            elif s.type is not None:
                self.variables[name] = Variable(name, s.type, value)

    def _located_diagnostics(self, assembly: Assembly, problems: list[Any], shift: int = 0,
                             text: str | None = None) -> str:
        out = []
        for d in problems[:5]:
            located = assembly.locate(d.span)
            if located is None:
                out.append(f"error: {d.message}\n")
                continue
            source, span = located
            if shift and span.line == 1:  # the wrapping is on the first line only
                from ..syntax.source import Span

                span = Span(max(0, span.start_byte - shift), max(0, span.end_byte - shift), span.line,
                            max(1, span.column - shift), span.end_line,
                            max(1, span.end_column - (shift if span.end_line == 1 else 0)))
            shown = SourceText(text if text is not None else source.text, source.label)
            related = []
            for note in d.related:  # a note elsewhere than this input (a session variable) is left out
                where = assembly.locate(note.span)
                if where is not None and where[0].label == source.label:
                    related.append(dataclasses.replace(note, span=where[1]))
            out.append(render_diagnostic(shown, dataclasses.replace(d, span=span, related=tuple(related))))
        return "".join(out)

    def _shown(self, variable: Variable) -> str:
        """`total = 3 : I64`, or an array's header and its first elements."""
        if not isinstance(variable.value, View):
            return f"{variable.name} = {_value(variable.type, variable.value)} : {variable.type}\n"
        view = variable.value
        count = view.size
        lines = [f"{variable.name} : {variable.type}[{', '.join(map(str, view.extents))}]   "
                 f"{count} element{'s' if count != 1 else ''}   host"]
        for k, (index, value) in enumerate(_elements(view)):
            if k == SHOWN_ELEMENTS:
                lines.append(f"  ... {count - SHOWN_ELEMENTS} more")
                break
            lines.append(f"  [{', '.join(map(str, index))}] = {_value(variable.type, value)}")
        return "\n".join(lines) + "\n"

    # ---- commands

    def _command(self, line: str) -> Answer:
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
            return self._fuel(args)
        if name == ":executor":
            return self._executor(args)
        if name == ":reset":
            fuel = self.fuel
            self.__init__()  # type: ignore[misc]
            self.fuel = fuel
            return Answer("the session is empty\n", counted=False)
        if name == ":vars":
            return Answer("".join(self._shown(v) for v in self.variables.values()) or "no variables\n",
                          counted=False)
        if name == ":load":
            if len(args) != 1:
                return Answer("error: :load FILE\n", error=True, counted=False)
            return self._load(Path(args[0]))
        if name == ":type":
            return self._type(line[len(":type"):].strip())
        if name == ":steps":
            return self._steps(args)
        if name == ":run":
            return self._run(line[len(":run"):].strip())
        return Answer(f"error: unknown command {name} (:help lists them)\n", error=True, counted=False)

    def _executor(self, args: list[str]) -> Answer:
        if not args:
            c17, reference = self.dispatched
            counted = f" ({c17} dispatches in C, {reference} on the reference: a fault, fuel or a fold's overflow " \
                "is found there)" if self.executor == "cpu-c17" else ""
            return Answer(f"executor: {self.executor}{counted}\n", counted=False)
        if len(args) != 1 or args[0] not in ("cpu-sir-interp", "cpu-c17"):
            return Answer("error: :executor cpu-sir-interp | cpu-c17 (gpu-cuda: not yet in a session)\n", error=True,
                          counted=False)
        if args[0] == "cpu-c17":
            from ..exec.c17.build import NoCompiler, find_compiler

            try:
                find_compiler()
            except NoCompiler as error:
                return Answer(f"error: cpu-c17 cannot run here: {error}\n", error=True, counted=False)
        self.executor = args[0]
        return Answer(f"executor: {self.executor} (each dispatch's work-items; the session stays in the host)\n"
                      if self.executor == "cpu-c17" else f"executor: {self.executor}\n", counted=False)

    def _fuel(self, args: list[str]) -> Answer:
        if len(args) != 1 or not (args[0] == "none" or args[0].isdigit()):
            return Answer("error: :fuel N (a whole number of units) or :fuel none\n", error=True, counted=False)
        self.fuel = None if args[0] == "none" else int(args[0])
        return Answer("fuel: no budget\n" if self.fuel is None else f"fuel: {self.fuel} units per entry\n",
                      counted=False)

    def _load(self, path: Path) -> Answer:
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
        trial = dict(self.declared)
        owner = dict(self.owner)
        for item in parsed.module.items:
            if isinstance(item, (ast.KernelDef, ast.FunctionDef)):
                trial.pop(item.name.text, None)
                trial[item.name.text] = Declared(item.name.text, Piece(source, item.span.start_byte,
                                                                        item.span.end_byte))
                owner[item.name.text] = module_name
        assembly, built = self._build(trial, self.variables, None)
        problems = _errors(built)
        if problems:
            return Answer(self._located_diagnostics(assembly, problems), error=True, counted=False)
        self.declared, self.owner = trial, owner
        self.modules[module_name] = str(path)
        skipped = len(parsed.module.statements)
        note = f"; its {skipped} top-level statement{'s' if skipped != 1 else ''} not run" if skipped else ""
        return Answer(f"loaded {module_name} ({path}){note}\n")

    def _type(self, text: str) -> Answer:
        if not text:
            return Answer("error: :type EXPR\n", error=True, counted=False)
        bare = unqualify(text, set(self.modules))
        wrapped = Source(f"entry {self.number}", '"{' + bare.rstrip(";") + '}";')
        assembly, built = self._build(self.declared, self.variables, wrapped)
        problems = _errors(built)
        if problems:
            return Answer(self._located_diagnostics(assembly, problems, shift=2, text=bare), error=True,
                          counted=False)
        printed = [s for s in built.program.entry.body if isinstance(s, ir.Print)][-1]
        t = next(p.type for p in printed.parts if isinstance(p, ir.Expr))
        return Answer(f"{text} : {t}\n", counted=False)

    def _steps(self, args: list[str]) -> Answer:
        if len(args) != 1:
            return Answer("error: :steps KERNEL\n", error=True, counted=False)
        name = args[0].split(".")[-1]
        assembly, built = self._build(self.declared, self.variables, None)
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

    def _run(self, text: str) -> Answer:
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
            return self._cint(text if text.rstrip().endswith(";") else text + ";")
        return self._checked_run(text.rstrip(";"), check)

    def _checked_run(self, call: str, check: str) -> Answer:
        from ..exec.executors import EXECUTOR_NAMES
        from ..running.run import RunRequest, run

        if check not in EXECUTOR_NAMES:
            return Answer(f"error: --check takes one of {', '.join(EXECUTOR_NAMES)}\n", error=True, counted=False)
        source = Source(f"entry {self.number}", call + ";")
        assembly = Assembly()
        for item in self.declared.values():
            assembly.add(item.piece)
        for variable in self.variables.values():
            assembly.add_text(_declaration(variable, with_value=True))
        assembly.add(Piece(Source(source.label, unqualify(source.text, set(self.modules))), 0,
                           len(source.text.encode("utf-8"))))
        outcome = run(RunRequest(f"{SESSION}.ci", assembly.text, fuel=self.fuel, check=check, learn=False))
        self.inputs.append(source)
        if outcome.diagnostics:
            return Answer(self._located_diagnostics(assembly, outcome.diagnostics), error=True)
        if outcome.result is None:
            return Answer(f"error: {outcome.error}\n", error=True)
        text = outcome.result.output
        if outcome.result.fault is not None:
            the_source, record, stack = report_parts(assembly, outcome.result.fault, self.owner)
            text += _with_stack(render(the_source, record, revision=f"{SESSION}@r{self.revision}"), stack)
        if outcome.checked is not None and outcome.checked.result is None:
            text += f"check: {check} gave no result: {outcome.checked.error}\n"
        elif outcome.comparison is not None:
            text += outcome.comparison.line + "\n"
        return Answer(text, error=outcome.result.fault is not None)


# ---- helpers

def _expression_like(text: str) -> bool:
    """An input that is no statement: no `;` or `}` at its end."""
    stripped = text.strip()
    return bool(stripped) and not stripped.endswith(("}", ";"))


def _errors(built: Any) -> list[Any]:
    return [d for d in built.syntax.diagnostics + built.checked.diagnostics if d.severity == Severity.ERROR]


def _diagnostics(source: Source, errors: list[Any]) -> str:
    shown = SourceText(source.text, source.label)
    return "".join(render_diagnostic(shown, d) for d in errors[:5])


def _entry_slots(entry: ir.Function) -> dict[str, int]:
    """The entry's named variables (the session's and the input's) by name."""
    from ..ir.slots import slots

    return {s.name: slot for slot, s in slots(entry).items() if s.kind == "local"}


def _zero(t: Type) -> str:
    if isinstance(t, BoolType):
        return "false"
    if isinstance(t, FixedType):
        return "0.0"
    return "0"


def _declaration(variable: Variable, with_value: bool = False) -> str:
    """The declaration that gives the session's variable its slot (its value is bound
    in the frame, not by this statement, unless `with_value`: a program run elsewhere)."""
    if isinstance(variable.value, View):
        view = variable.value
        head = f"{variable.type}[{', '.join(map(str, view.extents))}] {variable.name}"
        if not with_value:
            return head + ";"
        values = [_literal(variable.type, v) for _, v in _elements(view)]
        return f"{head} = [{', '.join(values)}];"
    value = _literal(variable.type, variable.value) if with_value else _zero(variable.type)
    return f"{variable.type} {variable.name} = {value};"


def _literal(t: Type, value: Any) -> str:
    if isinstance(t, BoolType):
        return "true" if value else "false"
    if isinstance(t, FixedType):
        return f"({value} as {t})" if False else _value(t, value)
    return str(value)


def _value(t: Type, value: Any) -> str:
    try:
        return format_value(t, value)
    except TypeError:
        return str(value)


def _elements(view: View) -> Any:
    """(index tuple, value) of each element of `view`, row-major."""
    from itertools import product

    for index in product(*(range(e) for e in view.extents)):
        yield index, view.read(list(index))


def _with_stack(report: str, stack: list[str]) -> str:
    """The report with its stack lines where `render` puts them: before the address."""
    if not stack:
        return report
    lines = report.splitlines()
    indent = next((ln[:ln.index("= ")] for ln in lines if ln.lstrip().startswith("= ")), "   ")
    at = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith(("= address:", "= revision:",
                                                                           "= fuel-consumed:"))), len(lines))
    return "\n".join(lines[:at] + [f"{indent}= {s}" for s in stack] + lines[at:]) + "\n"


__all__ = ["Answer", "HELP", "Session", "Variable"]


def _at(session: Session, text: str, cursor: int) -> tuple[Any, int]:
    """The session's program with `text` as its last input, as the editors' Document,
    and the byte offset of `cursor` (a code point index into `text`) in it."""
    from ..ide.document import Document

    bare = unqualify(text, set(session.modules))
    assembly = Assembly()
    for item in session.declared.values():
        assembly.add(item.piece)
    for variable in session.variables.values():
        assembly.add_text(_declaration(variable))
    start = assembly.end
    assembly.add(Piece(Source("input", bare), 0, len(bare.encode("utf-8"))))
    offset = start + len(bare[:cursor].encode("utf-8"))
    return Document("session:input", assembly.text, path=f"{SESSION}.ci"), offset


def complete(session: Session, text: str, cursor: int) -> list[Any]:
    """What the language server would offer at `cursor` of an input: the same `ide`
    completion, over the session's program (its kernels, functions and variables)."""
    from ..ide.completion import completion

    doc, offset = _at(session, text, cursor)
    items = completion(doc, offset)
    return sorted(items, key=lambda i: (i.sort, i.label))


def inspect(session: Session, text: str, cursor: int) -> str | None:
    """The hover text at `cursor` of an input (Markdown), as the editors show it."""
    from ..ide.hover import hover

    doc, offset = _at(session, text, cursor)
    found = hover(doc, offset)
    return None if found is None else found.markdown
