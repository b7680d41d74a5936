/** The text of a `cint/runResult` in the run output (no `vscode` import: node tests load it).
 * Only the server's own texts are printed; a record is never formatted here
 * (cint_ls/server/schema/run-result.schema.json). */

/** What `auto` decided, from the result's `runReport` (`cint run --report=json`'s object):
 * its `decision` line when auto chose the executor; undefined when the executor was named or
 * the server sent no report. */
export function autoDecision(runReport: unknown): string | undefined {
  if (typeof runReport !== "object" || runReport === null) {
    return undefined;
  }
  const { chosen, decision } = runReport as { chosen?: unknown; decision?: unknown };
  return chosen === "auto" && typeof decision === "string" && decision !== "" ? decision : undefined;
}

/** The lines the run output shows for a result, in order: output, report, error, auto's
 * decision, notes. */
export function runResultLines(output: string, report: string | undefined | null, error: string | undefined | null,
                               notes: string[], decision?: string): string[] {
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
  if (decision) {
    lines.push(decision);
  }
  for (const note of notes) {
    lines.push(`note: ${note}`);
  }
  return lines;
}
