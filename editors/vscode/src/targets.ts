/** `cint.setTargets` [uri, targets]: the quick fix of a gpu-cuda refusal (no `vscode`
 * import: node tests load it). The fix changes the `cint.targets` setting, which a server
 * cannot do (LSP has no request for it), so the server's code action carries this command
 * and the extension runs it: the workspace's `cint.targets` (the user's when no folder is
 * open) becomes the argument; the server hears of it through the configuration sync. */

export const SET_TARGETS = "cint.setTargets";
/** The executors `cint.targets` may name (package.json's enum, the server's EXECUTOR_NAMES). */
export const TARGET_NAMES = ["cpu-sir-interp", "cpu-c17", "gpu-cuda"] as const;

/** Where the setting is written: the workspace's settings, or the user's. */
export type Scope = "workspace" | "global";

/** What the extension gives the handler: `vscode.workspace.getConfiguration("cint", uri)`. */
export interface TargetsConfiguration {
  update(section: "targets", value: string[], scope: Scope): PromiseLike<void>;
}

/** The command's arguments, checked; an Error whose message says what is wrong. */
export function parseSetTargets(args: readonly unknown[]): { uri: string; targets: string[] } | Error {
  if (args.length !== 2) {
    return new Error(`${SET_TARGETS}: expected [uri, targets], got ${args.length} argument${args.length === 1 ? "" : "s"}`);
  }
  const [uri, targets] = args;
  if (typeof uri !== "string" || !/^[a-z][a-z0-9+.-]*:/i.test(uri)) {
    return new Error(`${SET_TARGETS}: the first argument must be a document URI`);
  }
  if (!Array.isArray(targets) || targets.length === 0) {
    return new Error(`${SET_TARGETS}: the second argument must be a non-empty list of executor names`);
  }
  const unknown = targets.filter((t) => typeof t !== "string" || !(TARGET_NAMES as readonly string[]).includes(t));
  if (unknown.length > 0) {
    return new Error(`${SET_TARGETS}: unknown executors ${JSON.stringify(unknown)} (known: ${TARGET_NAMES.join(", ")})`);
  }
  const unique = [...new Set(targets as string[])];
  return { uri, targets: unique };
}

/** Runs the command: checks the arguments, writes `cint.targets` where the workspace keeps
 * its settings (`hasWorkspace`), else in the user's; the targets written. */
export async function setTargets(args: readonly unknown[], configuration: (uri: string) => TargetsConfiguration,
                                 hasWorkspace: boolean): Promise<string[]> {
  const parsed = parseSetTargets(args);
  if (parsed instanceof Error) {
    throw parsed;
  }
  await configuration(parsed.uri).update("targets", parsed.targets, hasWorkspace ? "workspace" : "global");
  return parsed.targets;
}
