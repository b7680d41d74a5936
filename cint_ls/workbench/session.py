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
import re
from dataclasses import dataclass, field
from typing import Any

from ..exec.executors import ExecutorUnavailable
from ..exec.interp import Machine
from ..exec.interp.compiler import ArrayBinding
from ..exec.runtime import CintFault
from ..exec.views import View
from ..ir import nodes as ir
from ..ir.build import build
from ..syntax import Severity, ast, parse_source
from ..syntax.report import render_diagnostic
from ..syntax.source import SourceText
from .commands import command
from .program import SESSION, Assembly, Piece, Source, expression_piece, report, unqualify
from .values import (
    Answer,
    Declared,
    Variable,
    _diagnostics,
    _elements,
    _entry_slots,
    _errors,
    _expression_like,
    _value,
    assemble,
)

SHOWN_ELEMENTS = 10  # an array's elements listed after its declaration; the rest counted


@dataclass
class Session:
    fuel: int | None = None
    executor: str = "cpu-sir-interp"  # where dispatches run their work-items (:executor)
    dispatched: list[int] = field(default_factory=lambda: [0, 0])  # on the executor, on the reference
    gpu: Any = None  # with gpu-cuda: its device (exec/cuda/runner.py GpuDevice), open for the session
    number: int = 1  # the next input's number: `ci[N]>`
    revision: int = 0
    declared: dict[str, Declared] = field(default_factory=dict)  # kernels and functions, in order
    variables: dict[str, Variable] = field(default_factory=dict)
    modules: dict[str, str] = field(default_factory=dict)  # a loaded module's name -> its file
    owner: dict[str, str] = field(default_factory=dict)  # a loaded declaration's name -> its module
    inputs: list[Source] = field(default_factory=list)

    def reset(self) -> None:
        """Forget everything but the fuel budget and the executor (`:reset`)."""
        fuel, executor, gpu = self.fuel, self.executor, self.gpu
        self.__init__()  # type: ignore[misc]
        self.fuel, self.executor, self.gpu = fuel, executor, gpu

    # ---- the prompt's side

    @property
    def prompt(self) -> str:
        return f"ci[{self.number}]> "

    def enter(self, text: str) -> Answer:
        """One input: a command (`:load ...`) or cint."""
        stripped = text.strip()
        if not stripped:
            return Answer(counted=False)
        try:
            answer = command(self, stripped) if stripped.startswith(":") else self._cint(text)
        except KeyboardInterrupt:  # Ctrl-C before the entry ran (while it is checked): nothing changed
            return Answer("interrupted\n", error=True, counted=False)
        except Exception as error:  # noqa: BLE001 - a defect of ours must not end the session
            return Answer(f"internal error: {type(error).__name__}: {error} (the session and its variables are "
                          "kept; please report this)\n", error=True, counted=False)
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
        taken = [name for name in pieces if name in self.owner]
        if taken:  # one program holds the modules' names bare: a session name may not hide one
            name = taken[0]
            return Answer(f"error: {source.label}: `{name}` is {self.owner[name]}.{name}; give the session's "
                          f"another name (modules share one namespace in a session)\n", error=True)
        trial = dict(self.declared)
        for name, piece in pieces.items():
            trial.pop(name, None)  # a redefinition replaces the old declaration
            trial[name] = Declared(name, piece)
        assembly, built = self._build(trial, self.variables, None, focus=bare)
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
                    replacing: set[str] = frozenset(),  # type: ignore[assignment]
                    checked: tuple[Assembly, Any] | None = None) -> Answer:
        """The input's statements as one entry (`checked`: the program already built)."""
        kept = {name: v for name, v in self.variables.items() if name not in replacing}
        assembly, built = checked or self._build(self.declared, kept, Source(source.label, bare))
        problems = _errors(built)
        if problems:
            return Answer(self._located_diagnostics(assembly, problems), error=True)
        program = built.program
        assert program is not None
        if self.executor == "gpu-cuda":
            from ..exec.cuda import admit_build

            refusal = admit_build(built)
            if refusal is not None:  # its PTX cannot be built: nothing of the input runs
                # The message's own `at session.ci:L:C` is the session's program's: the
                # report's arrow gives the place in the input.
                refusal = dataclasses.replace(refusal, message=re.sub(rf" at {SESSION}\.ci:\d+:\d+$", "",
                                                                      refusal.message))
                return Answer(self._located_diagnostics(assembly, [refusal]), error=True)
        entry = program.entry
        start = assembly.placed[-1].first
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
        failed: str | None = None
        try:
            machine.compiler.block(running)(frame)
        except CintFault as error:
            fault = error.record(machine.fuel.consumed)
        except KeyboardInterrupt:  # Ctrl-C: the entry stops; what it did so far stays, as after a fault
            interrupted = True
        except ExecutorUnavailable as error:  # the executor could not run a dispatch (no compiler, a device error)
            failed = str(error)
        self.inputs.append(source)
        if runner is not None:
            self.dispatched[0] += runner.ran
            self.dispatched[1] += runner.fell_back
        before = set(self.variables)
        self._take_back(entry, named, frame)
        text = "".join(out)
        news = self.gpu.news() if runner is not None and self.gpu is not None else None
        text = text if news is None else news + text
        if interrupted:
            return Answer(text + "interrupted: the entry stopped; a dispatch in progress published nothing\n",
                          error=True)
        if failed is not None:
            return Answer(text + f"error: {failed}; the entry stopped there\n", error=True)
        if fault is not None:
            return Answer(text + report(assembly, fault, self.owner, f"{SESSION}@r{self.revision}"), error=True)
        if expression:
            return Answer(text)
        new = [name for name in self.variables if name not in before or name in replacing]
        return Answer(text + "".join(self._shown(self.variables[name]) for name in new))

    def _expression(self, source: Source, bare: str) -> Answer:
        """An expression's value: `= 5 : I64`."""
        assembly, built = self._build(self.declared, self.variables, expression_piece(source.label, bare))
        problems = _errors(built)
        if problems:
            return Answer(self._located_diagnostics(assembly, problems), error=True)
        answer = self._statements(source, bare, expression=True, checked=(assembly, built))
        if answer.error:
            return answer
        assert built.program is not None
        printed = [s for s in built.program.entry.body if isinstance(s, ir.Print)][-1]
        t = next(p.type for p in printed.parts if isinstance(p, ir.Expr))
        return Answer(f"= {answer.text} : {t}\n")

    def _runner(self, program: ir.Program, machine: Machine) -> Any:
        """With `:executor cpu-c17` or `gpu-cuda`, the machine's dispatches run their
        work-items in C or on the device (exec/c17/runner.py, exec/cuda/runner.py); the
        entry's own statements stay on the machine, which keeps the session's variables."""
        runner: Any
        if self.executor == "cpu-c17":
            from ..exec.c17.runner import C17Runner

            runner = C17Runner(program, machine.runner, lambda: machine.depth)
        elif self.executor == "gpu-cuda" and self.gpu is not None:
            from ..exec.cuda.runner import GpuRunner

            runner = GpuRunner(program, machine.runner, lambda: machine.depth, self.gpu)
        else:
            return None
        machine.runner = runner
        return runner

    # ---- the program

    def _build(self, declared: dict[str, Declared], variables: dict[str, Variable],
               statements: Source | Piece | None, focus: str | None = None) -> tuple[Assembly, Any]:
        """The session's program with `statements` last. With `focus` (the input's text,
        the default where there are statements), only the declarations it can reach by
        name, transitively: an input's cost does not grow with a loaded file's size."""
        if focus is None and statements is not None:
            focus = statements.text if isinstance(statements, Source) else statements.source.text
        assembly = assemble(declared, variables, statements, _reached(declared, focus) if focus is not None else None)
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

    def _located_diagnostics(self, assembly: Assembly, problems: list[Any]) -> str:
        out = []
        for d in problems[:5]:
            located = assembly.locate(d.span)
            if located is None:
                out.append(f"error: {d.message}\n")
                continue
            source, span = located
            shown = SourceText(source.text, source.label)
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


WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _reached(declared: dict[str, Declared], text: str) -> set[str]:
    """The declarations `text` names, and those they name, transitively (by the words
    of their text: a name in a comment or a string is taken too, which only adds)."""
    found: set[str] = set()
    todo = [w for w in WORD.findall(text) if w in declared]
    while todo:
        name = todo.pop()
        if name in found:
            continue
        found.add(name)
        piece = declared[name].piece
        body = piece.source.text.encode("utf-8")[piece.start:piece.end].decode("utf-8", "replace")
        todo.extend(w for w in WORD.findall(body) if w in declared and w not in found)
    return found


def _at(session: Session, text: str, cursor: int) -> tuple[Any, int]:
    """The session's program with `text` as its last input, as the editors' Document,
    and the byte offset of `cursor` (a code point index into `text`) in it."""
    from ..ide.document import Document

    bare = unqualify(text, set(session.modules))
    assembly = assemble(session.declared, session.variables, Source("input", bare))
    offset = assembly.placed[-1].byte + len(bare[:cursor].encode("utf-8"))
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


__all__ = ["Answer", "Session", "Variable", "complete", "inspect"]
