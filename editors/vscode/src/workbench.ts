// cint-workbench in an integrated terminal (issue 31): `cint: Open workbench` and `cint:
// Send selection to workbench`. No `vscode` import: the extension makes the terminal and
// node tests (tests/editors/test_workbench_editors.py) run this part as it is.

import * as path from "path";
import { ServerChoice, which } from "./server";

export const OPEN_WORKBENCH = "cint.openWorkbench";
export const SEND_TO_WORKBENCH = "cint.sendSelectionToWorkbench";
/** The terminal's name, by which a workbench still running is found again. */
export const WORKBENCH_TERMINAL = "cint-workbench";

export interface WorkbenchCommand {
  command: string;
  args: string[];
  /** Added to the terminal's environment (PYTHONPATH for the bundle). */
  env: Record<string, string>;
}

/** The workbench beside the language server `choice` starts, loading `file` first when
 * there is one: `cint_ls.workbench` under the same interpreter and bundle (`<python> -P -m
 * cint_ls.workbench FILE`), or `cint-workbench` beside a `cint-ls` executable (else on
 * PATH), as debugAdapterOf does for the debugger. */
export function workbenchOf(choice: ServerChoice, file?: string): WorkbenchCommand {
  const tail = file ? [file] : [];
  const module = choice.args.indexOf("cint_ls.server");
  if (module >= 0) {
    const args = [...choice.args];
    args[module] = "cint_ls.workbench";
    return { command: choice.command, args: [...args, ...tail], env: { ...choice.env } };
  }
  const beside = path.join(path.dirname(choice.command), WORKBENCH_TERMINAL);
  const command = path.isAbsolute(choice.command) && which(beside) ? beside : WORKBENCH_TERMINAL;
  return { command, args: tail, env: { ...choice.env } };
}

/** Why the workbench command cannot start, or undefined: a bare name not on PATH. */
export function workbenchMissing(workbench: WorkbenchCommand, searchPath: string | undefined = process.env.PATH): string | undefined {
  if (path.isAbsolute(workbench.command) || which(workbench.command, searchPath)) {
    return undefined;
  }
  return `\`${workbench.command}\` is not on PATH (install cint-ls with its scripts, or set cint.server.path)`;
}

/** What `Send selection to workbench` types: the selection as it is, or the cursor's line
 * when nothing is selected; CRLF as LF, and without the line break that ends a selection
 * of whole lines (the terminal's Enter comes after it). The workbench goes on to the next
 * line while a brace, bracket or parenthesis is open, so a function arrives whole. */
export function textToSend(selection: string, currentLine: string): string {
  const text = selection.length > 0 ? selection : currentLine;
  return text.replace(/\r\n?/g, "\n").replace(/\n$/, "");
}
