/** Runs in flight and their cancellation (no `vscode` import: node tests load it with the
 * real vscode-jsonrpc against the real cint-ls, test/unit/runs.test.js).
 *
 * vscode-languageclient shows the progress that the server creates in the status bar, where
 * `cancellable` is ignored. So the extension starts each Run itself: a notification with a
 * Cancel button (`window.withProgress`), and the executeCommand request sent with a
 * cancellation token, which makes the client send `$/cancelRequest`; the server then kills
 * the run's child process. `cint: Cancel run` cancels every run in flight the same way. */

/** What `vscode.CancellationTokenSource` and vscode-jsonrpc's have in common. */
export interface TokenSource<T> {
  readonly token: T;
  cancel(): void;
  dispose(): void;
}

/** A token that says when it is cancelled (the Cancel button's). */
export interface Cancelling {
  onCancellationRequested(listener: () => unknown): { dispose(): unknown };
}

/** The runs in flight, each with a cancellation source of its own. */
export class Runs<T> {
  private readonly sources = new Set<TokenSource<T>>();

  constructor(
    private readonly newSource: () => TokenSource<T>,
    private readonly changed: (count: number) => void = () => undefined,
  ) {}

  /** Does `work` with a token that `cancelAll` (or `linked`, when given) cancels. */
  async run<R>(work: (token: T) => Promise<R>, linked?: Cancelling): Promise<R> {
    const source = this.newSource();
    this.sources.add(source);
    this.changed(this.sources.size);
    const link = linked?.onCancellationRequested(() => source.cancel());
    try {
      return await work(source.token);
    } finally {
      link?.dispose();
      this.sources.delete(source);
      source.dispose();
      this.changed(this.sources.size);
    }
  }

  /** Cancels every run in flight; how many there were. */
  cancelAll(): number {
    const count = this.sources.size;
    for (const source of this.sources) {
      source.cancel();
    }
    return count;
  }

  get size(): number {
    return this.sources.size;
  }
}

const REQUEST_CANCELLED = -32800; // LSP's RequestCancelled: the server's answer to $/cancelRequest

/** Whether a request ended because it was cancelled (the server's RequestCancelled answer,
 * or VS Code's CancellationError), not because it failed. */
export function isCancelled(error: unknown): boolean {
  if (typeof error !== "object" || error === null) {
    return false;
  }
  const { code, name } = error as { code?: unknown; name?: unknown };
  return code === REQUEST_CANCELLED || name === "Canceled";
}

/** The title of a run's notification: `cint: run twice() on cpu-c17`, `cint: compare executors`. */
export function runTitle(command: string, args: readonly unknown[]): string {
  if (command === "cint.compareExecutors") {
    const fn = typeof args[1] === "string" ? ` ${args[1]}()` : "";
    return `cint: compare executors${fn}`;
  }
  const executor = typeof args[1] === "string" ? args[1] : "auto"; // the server's default
  const fn = typeof args[2] === "string" ? ` ${args[2]}()` : "";
  return `cint: run${fn} on ${executor}`;
}

/** The message of a `$/progress` report the server sends for a run (its stage: `compiling`,
 * `running`, `describing the fault`, or `cpu-c17: running` in a comparison); undefined for
 * anything else. */
export function stageMessage(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) {
    return undefined;
  }
  const { kind, message } = value as { kind?: unknown; message?: unknown };
  return kind === "report" && typeof message === "string" ? message : undefined;
}

/** The executors `cint: Run` offers from the palette, `auto` first (the server's default:
 * it chooses by measurement, docs/cli.md), then each executor by name. */
export const EXECUTOR_CHOICES = ["auto", "cpu-sir-interp", "cpu-c17", "gpu-cuda"] as const;
