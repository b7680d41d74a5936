"""cint-workbench as a Jupyter kernel (issue 31), on the same session engine: a cell is
one or more inputs (an input goes on while a bracket is open), their answers are its
output, a fault or a diagnostic is the cell's error with the report, completion and
inspection are the language server's, and a 2-D array a cell names is shown as the
trace page's heat map (picture.py). ipykernel's wrapper-kernel base class does the
protocol; `cint-workbench --install-kernel [--user]` writes the kernelspec.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from ipykernel.kernelbase import Kernel

from .. import __version__
from ..exec.views import View
from .lines import inputs, open_brackets
from .session import Session, complete, inspect

NAME = "cint"


class CintKernel(Kernel):
    implementation = "cint-workbench"
    implementation_version = __version__
    language = "cint"
    language_version = "SPEC-02P.1"
    language_info = {"name": "cint", "mimetype": "text/x-cint", "file_extension": ".ci",
                     "pygments_lexer": "c", "codemirror_mode": "text/x-csrc"}
    banner = f"cint-workbench {__version__}: cint on cpu-sir-interp"

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cint = Session()

    async def do_execute(self, code: str, silent: bool, store_history: bool = True,
                         user_expressions: Any = None, allow_stdin: bool = False, **kwargs: Any) -> dict[str, Any]:
        try:
            return self._execute(code, silent)
        except KeyboardInterrupt:  # an interrupt outside an entry (the session stops its own)
            return self._error("interrupted")

    def _execute(self, code: str, silent: bool) -> dict[str, Any]:
        lines = iter(code.splitlines())
        for text in inputs(lambda prompt: next(lines, None), self.cint):
            answer = self.cint.enter(text)
            if answer.error:
                return self._error(answer.text)
            if silent:
                continue
            if isinstance(answer.value, View) and answer.value.rank == 2:
                from .picture import heat_map_html

                name = text.strip().rstrip(";").strip()
                self.send_response(self.iopub_socket, "display_data", {
                    "data": {"text/html": heat_map_html(name, answer.value), "text/plain": answer.text},
                    "metadata": {}})
            elif answer.text:
                self.send_response(self.iopub_socket, "stream", {"name": "stdout", "text": answer.text})
            if answer.quit:
                break
        return {"status": "ok", "execution_count": self.execution_count, "payload": [], "user_expressions": {}}

    def _error(self, report: str) -> dict[str, Any]:
        first = report.splitlines()[0] if report else "error"
        name = first.split("]")[0].split("[")[-1] if first.startswith(("fault[", "host[", "error[")) else "error"
        content = {"ename": name, "evalue": first, "traceback": report.rstrip("\n").splitlines()}
        self.send_response(self.iopub_socket, "error", content)
        return {"status": "error", "execution_count": self.execution_count, **content}

    async def do_complete(self, code: str, cursor_pos: int) -> dict[str, Any]:
        start = cursor_pos
        while start > 0 and (code[start - 1].isalnum() or code[start - 1] == "_"):
            start -= 1
        word = code[start:cursor_pos]
        items = [i for i in complete(self.cint, code, cursor_pos) if i.label.startswith(word)]
        return {"status": "ok", "matches": [i.label for i in items], "cursor_start": start, "cursor_end": cursor_pos,
                "metadata": {}}

    async def do_inspect(self, code: str, cursor_pos: int, detail_level: int = 0,
                         omit_sections: Any = ()) -> dict[str, Any]:
        shown = inspect(self.cint, code, cursor_pos)
        data = {} if shown is None else {"text/markdown": shown, "text/plain": shown}
        return {"status": "ok", "found": shown is not None, "data": data, "metadata": {}}

    async def do_is_complete(self, code: str) -> dict[str, Any]:
        return {"status": "incomplete", "indent": "    "} if open_brackets(code) > 0 else {"status": "complete"}


def install(user: bool) -> str:
    """Write the kernelspec (`cint`): this Python running this module."""
    from jupyter_client.kernelspec import KernelSpecManager

    with tempfile.TemporaryDirectory() as folder:
        spec = {"argv": [sys.executable, "-P", "-m", "cint_ls.workbench.kernel", "-f", "{connection_file}"],
                "display_name": "cint (workbench)", "language": "cint", "interrupt_mode": "signal"}
        (Path(folder) / "kernel.json").write_text(json.dumps(spec, indent=1))
        prefix = None if user else sys.prefix
        return str(KernelSpecManager().install_kernel_spec(folder, NAME, user=user, prefix=prefix))


def main() -> None:
    from ipykernel.kernelapp import IPKernelApp

    IPKernelApp.launch_instance(kernel_class=CintKernel)


if __name__ == "__main__":
    main()

