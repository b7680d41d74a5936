/** The text of a `cint/runResult` in the run output (no `vscode` import: node tests load it).
 * Only the server's own texts are printed; a record is never formatted here
 * (cint_ls/server/schema/run-result.schema.json). */

/** The lines the run output shows for a result, in order: output, report, error, notes. */
export function runResultLines(output: string, report: string | undefined | null, error: string | undefined | null,
                               notes: string[]): string[] {
  const lines: string[] = [];
  if (output) {
    lines.push(...output.replace(/\n$/, "").split("\n"));
  }
  if (report) {
    lines.push(...report.replace(/\n$/, "").split("\n"));
  }
  if (error) {
    lines.push(`error: ${error}`);
  }
  for (const note of notes) {
    lines.push(`note: ${note}`);
  }
  return lines;
}
