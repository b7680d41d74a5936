// "cint: Show trace": the page of a run's trace in a webview beside the editor (issue 18).
// The run result (`cint/runResult`) carries `trace`; the server's command `cint.tracePage`
// [uri, trace, {nonce}] answers the self-contained page `{html}`, its own script and style
// marked with the nonce, shown under a Content-Security-Policy that lets only those run
// (src/tracePage.ts).

import { randomBytes } from "crypto";
import * as vscode from "vscode";
import { ExecuteCommandRequest, LanguageClient } from "vscode-languageclient/node";
import { pageHtml, traceOf, tracePageArguments, traceTitle, webviewHtml, makeNonce } from "./tracePage";

export const SHOW_TRACE = "cint.showTrace";
const TRACE_PAGE = "cint.tracePage";

type Json = Record<string, unknown>;

/** The last run result that has a trace, a webview reused from one Show trace to the next,
 * and a status bar item that shows the picture in one click after each run. */
export class TraceView implements vscode.Disposable {
  private last: Json | undefined;
  private panel: vscode.WebviewPanel | undefined;
  private readonly item: vscode.StatusBarItem;

  constructor(private readonly client: () => LanguageClient | undefined) {
    this.item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
    this.item.text = "$(graph) cint trace";
    this.item.command = SHOW_TRACE;
  }

  /** Keeps a run result for Show trace; true when it has a trace. */
  remember(result: Json): boolean {
    if (!traceOf(result)) {
      return false;
    }
    this.last = result;
    const name = traceTitle(String(result.uri ?? "")).replace(/^cint trace: /, "");
    this.item.tooltip = `cint: show the trace of the last run (${name}, ${String(result.executor ?? "")})`;
    this.item.show();
    return true;
  }

  /** The command: the page of `result`'s trace (or the last run's) in a webview beside the
   * active editor. A malformed argument or a result without a trace is an error message. */
  async show(result?: unknown): Promise<void> {
    const nonce = makeNonce((size) => randomBytes(size));
    const args = tracePageArguments(result === undefined ? this.last : result, nonce);
    if (args instanceof Error) {
      void vscode.window.showErrorMessage(args.message);
      return;
    }
    const current = this.client();
    if (!current || !current.isRunning()) {
      void vscode.window.showErrorMessage("cint: the language server is not running");
      return;
    }
    let html: string | Error;
    try {
      html = pageHtml(await current.sendRequest(ExecuteCommandRequest.type, { command: TRACE_PAGE, arguments: args }),
                      nonce);
    } catch (error) {
      html = new Error(`cint: ${TRACE_PAGE} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (html instanceof Error) {
      void vscode.window.showErrorMessage(html.message);
      return;
    }
    const title = traceTitle(args[0]);
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel(
        "cint.trace", title, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
        // Scripts for the page's drawing; nothing to load from disk or the network.
        { enableScripts: true, localResourceRoots: [], enableFindWidget: true, retainContextWhenHidden: false },
      );
      this.panel.onDidDispose(() => (this.panel = undefined));
    } else {
      this.panel.reveal(vscode.ViewColumn.Beside, true);
    }
    this.panel.title = title;
    this.panel.webview.html = webviewHtml(html, nonce);
  }

  dispose(): void {
    this.item.dispose();
    this.panel?.dispose();
  }
}

/** Registers "cint: Show trace" (from activate). */
export function registerTrace(context: vscode.ExtensionContext, client: () => LanguageClient | undefined): TraceView {
  const view = new TraceView(client);
  context.subscriptions.push(view, vscode.commands.registerCommand(SHOW_TRACE, (result?: unknown) => view.show(result)));
  return view;
}
