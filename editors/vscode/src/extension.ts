// The cint extension: starts `cint-ls` (stdio) with vscode-languageclient, and shows what a
// Run produced. Everything else (diagnostics, hovers, inlay hints, code lenses, symbols…) is
// the language server's; this file only wires it up.

import * as path from "path";
import * as vscode from "vscode";
import { PythonExtension } from "@vscode/python-extension";
import { autoDecision, runResultLines } from "./runResult";
import { EXECUTOR_CHOICES, Runs, isCancelled, runTitle, stageMessage } from "./runs";
import { SET_TARGETS, TargetsConfiguration, setTargets } from "./targets";
import { registerTrace, SHOW_TRACE, TraceView } from "./trace";
import { chooseServer, debugAdapterOf, describeAttempts, describeChoice, ServerChoice } from "./server";
import { OPEN_WORKBENCH, SEND_TO_WORKBENCH, textToSend, WORKBENCH_TERMINAL, workbenchMissing, workbenchOf } from "./workbench";
import {
  ExecuteCommandRequest,
  InitializeParams,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
  StaticFeature,
  TransportKind,
  WorkDoneProgress,
} from "vscode-languageclient/node";

const RUN = "cint.run";
const COMPARE = "cint.compareExecutors";
const CANCEL = "cint.cancelRun";
let traceView: TraceView | undefined;

// The runs in flight; the context key `cint.running` shows `cint: Cancel run` in the palette.
const runs = new Runs(
  () => new vscode.CancellationTokenSource(),
  (count) => void vscode.commands.executeCommand("setContext", "cint.running", count > 0),
);
let runNumber = 0;

let client: LanguageClient | undefined;
let runOutput: vscode.OutputChannel;
let serverOutput: vscode.OutputChannel;
// Commands this extension registered itself because the server did not list them in its
// executeCommandProvider (vscode-languageclient registers those it lists).
let ownCommands: vscode.Disposable[] = [];

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionContext = context;
  extensionPath = context.extensionPath;
  extensionVersion = String(context.extension.packageJSON.version ?? "");
  runOutput = vscode.window.createOutputChannel("cint");
  traceView = registerTrace(context, () => client);
  serverOutput = vscode.window.createOutputChannel("cint-ls");
  context.subscriptions.push(
    runOutput,
    serverOutput,
    vscode.commands.registerCommand("cint.showOutput", () => runOutput.show(true)),
    vscode.commands.registerCommand("cint.restartServer", restartServer),
    vscode.commands.registerCommand(CANCEL, cancelRuns),
    // The quick fix of a gpu-cuda refusal: the server's code action, the editor's setting.
    vscode.commands.registerCommand(SET_TARGETS, runSetTargets),
    // cint-debug (issue 30): the adapter beside the server the extension chose, and F5 on
    // a .ci file without a launch.json.
    vscode.debug.registerDebugAdapterDescriptorFactory("cint", { createDebugAdapterDescriptor: debugAdapter }),
    vscode.debug.registerDebugConfigurationProvider("cint", { resolveDebugConfiguration: debugConfiguration }),
    // The Debug lens: [uri] for the entry, [uri, function] above an exported function.
    vscode.commands.registerCommand("cint.debug", debugFromLens),
    vscode.commands.registerCommand("cint.debugToFault", (uri?: string | vscode.Uri) => debugFromLens(uri, undefined, true)),
    // The editor title's Run button: the file on `auto`, as `cint run` without --executor.
    vscode.commands.registerCommand("cint.runFile", (uri?: unknown) => {
      const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
      return target ? vscode.commands.executeCommand(RUN, target.toString(), "auto") : undefined;
    }),
    // cint-workbench (issue 31): a terminal with the session, and the editor's lines sent to it.
    vscode.commands.registerCommand(OPEN_WORKBENCH, openWorkbenchWithFile),
    vscode.commands.registerCommand(SEND_TO_WORKBENCH, sendToWorkbench),
    vscode.window.onDidCloseTerminal((terminal) => {
      if (terminal === workbench?.terminal) {
        workbench = undefined;
      }
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("cint.server.path")) {
        void vscode.window
          .showInformationMessage("cint: the server path changed.", "Restart server")
          .then((choice) => choice && restartServer());
      }
    }),
    { dispose: () => void stopClient() },
  );
  await startClient();
}

async function debugAdapter(): Promise<vscode.DebugAdapterDescriptor | undefined> {
  if (!lastChoice) {
    await startClient();
  }
  if (!lastChoice) {
    void vscode.window.showErrorMessage("cint: no Python to run the debugger (see the cint-ls output).");
    return undefined;
  }
  const adapter = debugAdapterOf(lastChoice);
  return new vscode.DebugAdapterExecutable(adapter.command, adapter.args, { env: { ...process.env, ...adapter.env } as Record<string, string> });
}

// ---- the workbench

/** The workbench terminal this extension started, and when it can take input. */
let workbench: { terminal: vscode.Terminal; ready: Promise<void>; file?: string } | undefined;
/** How long a new workbench gets to show its prompt before text is typed into it (text
 * typed earlier is not lost, but the terminal echoes it above the banner). */
const WORKBENCH_STARTUP_MS = 700;

/** The workbench terminal that still runs: this extension's, else one of the same name
 * (a workbench that outlived a reload of the window). */
function liveWorkbench(): { terminal: vscode.Terminal; ready: Promise<void>; file?: string } | undefined {
  if (workbench && workbench.terminal.exitStatus === undefined && vscode.window.terminals.includes(workbench.terminal)) {
    return workbench;
  }
  const found = vscode.window.terminals.find((t) => t.name === WORKBENCH_TERMINAL && t.exitStatus === undefined);
  workbench = found ? { terminal: found, ready: Promise.resolve() } : undefined;
  return workbench;
}

let opening: Promise<{ terminal: vscode.Terminal; ready: Promise<void>; file?: string } | undefined> | undefined;

/** `cint: Open workbench`: shows the workbench terminal, or starts one (`<python> -P -m
 * cint_ls.workbench FILE` with the language server's Python and bundle, in the file's
 * folder) with the active editor's .ci file loaded when it is on disk (saved first). A
 * second call while one is starting gets the same terminal. */
function openWorkbench(preserveFocus: boolean): Promise<{ terminal: vscode.Terminal; ready: Promise<void>; file?: string } | undefined> {
  if (!opening) {
    opening = showOrStartWorkbench(preserveFocus).finally(() => {
      opening = undefined;
    });
  }
  return opening;
}

async function showOrStartWorkbench(preserveFocus: boolean): Promise<{ terminal: vscode.Terminal; ready: Promise<void>; file?: string } | undefined> {
  const live = liveWorkbench();
  if (live) {
    live.terminal.show(preserveFocus);
    return live;
  }
  if (!lastChoice) {
    await startClient();
  }
  if (!lastChoice) {
    void vscode.window.showErrorMessage("cint: no Python to run the workbench (see the cint-ls output).");
    return undefined;
  }
  const editor = vscode.window.activeTextEditor;
  const document = editor?.document.languageId === "cint" && editor.document.uri.scheme === "file" ? editor.document : undefined;
  if (document?.isDirty) {
    await document.save();
  }
  const file = document?.uri.fsPath;
  const command = workbenchOf(lastChoice, file);
  const missing = workbenchMissing(command);
  if (missing) {
    void vscode.window.showErrorMessage(`cint: cannot start the workbench: ${missing}.`);
    return undefined;
  }
  const cwd = file ? path.dirname(file) : vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const terminal = vscode.window.createTerminal({
    name: WORKBENCH_TERMINAL, shellPath: command.command, shellArgs: command.args, env: command.env, cwd,
  });
  terminal.show(preserveFocus);
  const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
  // The process started (or never will: then not more than a few seconds), and its prompt.
  const ready = Promise.race([Promise.resolve(terminal.processId).then(() => pause(WORKBENCH_STARTUP_MS)), pause(5000)]);
  workbench = { terminal, ready, file };
  return workbench;
}

/** `cint: Open workbench`: the workbench shown, and the active .ci file loaded into it when
 * it was started with another (`:load FILE` at its prompt). */
async function openWorkbenchWithFile(): Promise<void> {
  const running = liveWorkbench();
  const target = await openWorkbench(false);
  const editor = vscode.window.activeTextEditor;
  const file = editor?.document.languageId === "cint" && editor.document.uri.scheme === "file" ? editor.document.uri.fsPath : undefined;
  if (running && target && file && target.file !== file) {
    await target.ready;
    target.terminal.sendText(`:load '${file.replace(/'/g, `'"'"'`)}'`, true);
    target.file = file;
  }
}

/** `cint: Send selection to workbench` (Ctrl+Enter): the selection, or the cursor's line,
 * typed into the workbench followed by Enter, the workbench started first when none runs. */
async function sendToWorkbench(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    void vscode.window.showWarningMessage("cint: open a .ci file to send its lines to the workbench.");
    return;
  }
  const selection = editor.selection;
  const text = textToSend(editor.document.getText(selection), editor.document.lineAt(selection.active.line).text);
  const target = await openWorkbench(true);
  if (!target) {
    return;
  }
  await target.ready;
  target.terminal.sendText(text, true);
}

/** The Debug lens ([uri] or [uri, function]), the editor title's Debug (its Uri) and the
 * command palette (the active editor's file). */
async function debugFromLens(uri?: string | vscode.Uri, entry?: unknown, toFault = false): Promise<boolean> {
  const target = uri instanceof vscode.Uri ? uri : uri ? vscode.Uri.parse(uri) : vscode.window.activeTextEditor?.document.uri;
  entry = typeof entry === "string" ? entry : undefined;
  if (!target || target.scheme !== "file") {
    void vscode.window.showErrorMessage("cint: save the file to debug it (the debugger reads it from disk).");
    return false;
  }
  const document = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.toString());
  if (document?.isDirty) {
    await document.save();
  }
  const config: vscode.DebugConfiguration = {
    type: "cint", request: "launch", name: typeof entry === "string" ? `Debug ${entry}` : "Debug the cint file",
    program: target.fsPath,
  };
  if (typeof entry === "string") {
    config.entry = entry;
  }
  if (toFault) {
    config.name = "Debug the cint file to its fault";
    config.stopOnFault = true;
  }
  return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(target), config);
}

/** F5 without a launch.json (the configuration is empty): debug the active .ci file. */
function debugConfiguration(folder: vscode.WorkspaceFolder | undefined, config: vscode.DebugConfiguration): vscode.DebugConfiguration | undefined {
  if (!config.type && !config.request && !config.name) {
    const editor = vscode.window.activeTextEditor;
    if (editor?.document.languageId !== "cint") {
      return config;
    }
    // Kept: `noDebug` (Ctrl+F5), which makes it a plain Run.
    return { ...config, type: "cint", request: "launch", name: "Debug the cint file", program: editor.document.uri.fsPath };
  }
  if (!config.program) {
    void vscode.window.showErrorMessage("cint: the launch configuration needs a `program` (a .ci file).");
    return undefined;
  }
  return config;
}

export async function deactivate(): Promise<void> {
  await stopClient();
}

let extensionPath = "";
let extensionVersion = "";
let pythonApi: PythonExtension | undefined;
const PYTHON_EXTENSION = "ms-python.python";

/** The interpreter the Python extension selected for the workspace, when it is installed
 * (it is not a dependency: without it, `python3` on PATH runs the bundled server). */
async function pythonExtensionInterpreter(context: vscode.ExtensionContext): Promise<string | undefined> {
  if (!vscode.extensions.getExtension(PYTHON_EXTENSION)) {
    return undefined;
  }
  try {
    if (!pythonApi) {
      pythonApi = await PythonExtension.api();
      // Another interpreter selected: the server runs under the new one after a restart.
      context.subscriptions.push(
        pythonApi.environments.onDidChangeActiveEnvironmentPath(() => {
          if (lastChoice?.source === "the Python extension's interpreter" || !client?.isRunning()) {
            void restartServer();
          }
        }),
      );
    }
    const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
    const active = pythonApi.environments.getActiveEnvironmentPath(resource);
    const resolved = await pythonApi.environments.resolveEnvironment(active);
    return resolved?.executable.uri?.fsPath;
  } catch (error) {
    serverOutput.appendLine(`cint: the Python extension gave no interpreter: ${error instanceof Error ? error.message : error}`);
    return undefined;
  }
}

let lastChoice: ServerChoice | undefined;
let extensionContext: vscode.ExtensionContext;

/** Tells the server which client and version started it (the server warns when its own
 * version differs: cint_ls/server/handlers/lifecycle.py). vscode-languageclient sends VS
 * Code's name and version as clientInfo; the extension's are the ones that matter. */
function clientInfoFeature(): StaticFeature {
  return {
    // The extension runs `cint.setTargets` (a refusal's quick fix): the server offers it then.
    fillClientCapabilities: (capabilities) => {
      const experimental = (capabilities.experimental ?? {}) as Record<string, unknown>;
      // It starts cint-debug too (`cint.debug`): the server adds a Debug lens beside each Run.
      capabilities.experimental = { ...experimental, cint: { setTargets: true, debug: true } };
    },
    fillInitializeParams: (params: InitializeParams) => {
      params.clientInfo = { name: "cint-vscode", version: extensionVersion };
    },
    initialize: () => undefined,
    getState: () => ({ kind: "static" }),
    clear: () => undefined,
  };
}

async function startClient(): Promise<void> {
  const serverPath = vscode.workspace.getConfiguration("cint").get<string>("server.path", "").trim();
  const { choice, attempts } = await chooseServer({
    serverPath,
    bundledLibs: path.join(extensionPath, "bundled", "libs"),
    pythonExtensionInterpreter: serverPath ? undefined : await pythonExtensionInterpreter(extensionContext),
  });
  lastChoice = choice;
  if (!choice) {
    serverOutput.appendLine("cint: no language server to start. Tried:");
    describeAttempts(attempts).forEach((line) => serverOutput.appendLine(line));
    const actions = vscode.extensions.getExtension(PYTHON_EXTENSION)
      ? ["Select Python interpreter", "Set cint.server.path", "Show log"]
      : ["Set cint.server.path", "Show log"];
    const reason = serverPath
      ? `\`${serverPath}\` (cint.server.path) is not a working cint-ls`
      : `it needs Python 3.11 or later (the Python extension's interpreter or python3 on PATH)`;
    void vscode.window
      .showErrorMessage(`cint: could not start the language server: ${reason}.`, ...actions)
      .then((action) => {
        if (action === "Select Python interpreter") {
          void vscode.commands.executeCommand("python.setInterpreter");
        } else if (action === "Set cint.server.path") {
          void vscode.commands.executeCommand("workbench.action.openSettings", "cint.server.path");
        } else if (action === "Show log") {
          serverOutput.show(true);
        }
      });
    return;
  }
  serverOutput.appendLine(describeChoice(choice, extensionVersion));
  describeAttempts(attempts.filter((a) => !a.choice)).forEach((line) => serverOutput.appendLine(`  skipped ${line.trim()}`));
  const command = choice.command;
  const options = { env: { ...process.env, ...choice.env } };
  const serverOptions: ServerOptions = {
    run: { command, args: choice.args, options, transport: TransportKind.stdio },
    debug: { command, args: choice.args, options, transport: TransportKind.stdio },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "cint" },
      { scheme: "untitled", language: "cint" },
    ],
    // The server asks for `cint.*` with workspace/configuration; a change is pushed too.
    synchronize: { configurationSection: "cint" },
    outputChannel: serverOutput,
    middleware: {
      // From the command palette `cint.run` comes without arguments: fill in the active
      // editor's document and ask which executor. From a code lens it comes complete.
      // Runs go out with a notification that can cancel them (runWithProgress).
      executeCommand: async (command, args, next) => {
        if (command !== RUN && command !== COMPARE) {
          return next(command, args);
        }
        const filled = await fillArguments(command, args);
        return filled === undefined || !client ? undefined : runWithProgress(client, command, filled);
      },
    },
  };
  // The id `cint` makes the client follow the `cint.trace.server` setting.
  client = new LanguageClient("cint", "cint-ls", serverOptions, clientOptions);
  client.registerFeature(clientInfoFeature());
  client.onDidChangeState((event) => {
    if (event.newState === State.Stopped) {
      disposeOwnCommands();
    }
  });
  try {
    await client.start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    void vscode.window
      .showErrorMessage(
        `cint: could not start the language server \`${command}\` (${message}). ` +
          "Set `cint.server.path` to a cint-ls, or select a Python 3.11+ interpreter.",
        "Open settings",
      )
      .then((choice) => {
        if (choice) {
          void vscode.commands.executeCommand("workbench.action.openSettings", "cint.server.path");
        }
      });
    return;
  }
  client.onNotification("cint/runResult", showRunResult);
  client.onNotification("cint/compareResult", showCompareResult);
  registerMissingCommands(client);
}

async function stopClient(): Promise<void> {
  disposeOwnCommands();
  const current = client;
  client = undefined;
  if (current && current.isRunning()) {
    await current.stop();
  }
}

async function restartServer(): Promise<void> {
  await stopClient();
  await startClient();
  if (client?.isRunning()) {
    void vscode.window.setStatusBarMessage("cint: language server restarted", 3000);
  }
}

function disposeOwnCommands(): void {
  for (const disposable of ownCommands) {
    disposable.dispose();
  }
  ownCommands = [];
}

/** The code lens commands run on the server (workspace/executeCommand). vscode-languageclient
 * registers the ones the server lists; any it did not list is registered here, so the palette
 * entries always work. */
function registerMissingCommands(current: LanguageClient): void {
  const listed = current.initializeResult?.capabilities.executeCommandProvider?.commands ?? [];
  for (const command of [RUN, COMPARE]) {
    if (listed.includes(command)) {
      continue;
    }
    ownCommands.push(
      vscode.commands.registerCommand(command, async (...args: unknown[]) => {
        const filled = await fillArguments(command, args);
        if (filled === undefined) {
          return undefined;
        }
        return runWithProgress(current, command, filled);
      }),
    );
  }
}

/** Sends a Run or Compare as the executeCommand request, under a notification with a Cancel
 * button that shows the server's stages (compiling, running, describing the fault). Cancel
 * (the button or `cint: Cancel run`) sends `$/cancelRequest`, and the server kills the run. */
async function runWithProgress(current: LanguageClient, command: string, args: unknown[]): Promise<unknown> {
  // A token of our own for the request: the server reports the stages on it, and creates
  // no progress of its own (which would go to the status bar, without a Cancel button).
  const workDoneToken = `cint-run-${process.pid}-${++runNumber}`;
  const options = { location: vscode.ProgressLocation.Notification, title: runTitle(command, args), cancellable: true };
  return vscode.window.withProgress(options, (progress, cancelButton) =>
    runs.run(async (token) => {
      const stages = current.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
        const message = stageMessage(value);
        if (message) {
          progress.report({ message });
        }
      });
      try {
        return await current.sendRequest(ExecuteCommandRequest.type, { command, arguments: args, workDoneToken }, token);
      } catch (error) {
        if (isCancelled(error)) {
          void vscode.window.setStatusBarMessage("cint: run cancelled", 5000);
          return undefined;
        }
        const message = error instanceof Error ? error.message : String(error);
        void vscode.window.showErrorMessage(`cint: ${command} failed: ${message}`);
        return undefined;
      } finally {
        stages.dispose();
      }
    }, cancelButton),
  );
}

/** `cint.setTargets` [uri, targets] (a code action's command): the workspace's
 * `cint.targets`, or the user's without a workspace; malformed arguments are an error
 * message. The configuration sync tells the server. */
async function runSetTargets(...args: unknown[]): Promise<void> {
  const scopes = { workspace: vscode.ConfigurationTarget.Workspace, global: vscode.ConfigurationTarget.Global };
  const configuration = (uri: string): TargetsConfiguration => ({
    update: (section, value, scope) =>
      vscode.workspace.getConfiguration("cint", vscode.Uri.parse(uri)).update(section, value, scopes[scope]),
  });
  try {
    const targets = await setTargets(args, configuration, (vscode.workspace.workspaceFolders?.length ?? 0) > 0);
    void vscode.window.setStatusBarMessage(`cint: cint.targets is now ${JSON.stringify(targets)}`, 5000);
  } catch (error) {
    void vscode.window.showErrorMessage(error instanceof Error ? error.message : String(error));
  }
}

/** `cint: Cancel run`: cancels every run in flight. */
function cancelRuns(): void {
  if (runs.cancelAll() === 0) {
    void vscode.window.showInformationMessage("cint: no run in progress.");
  }
}

async function fillArguments(command: string, args: unknown[]): Promise<unknown[] | undefined> {
  if (command !== RUN && command !== COMPARE) {
    return args;
  }
  const filled = [...args];
  if (filled.length === 0 || filled[0] === undefined || filled[0] instanceof vscode.Uri) {
    const uri =
      filled[0] instanceof vscode.Uri ? filled[0] : vscode.window.activeTextEditor?.document.uri;
    if (!uri) {
      void vscode.window.showWarningMessage("cint: open a .ci file to run it.");
      return undefined;
    }
    filled[0] = uri.toString();
  }
  if (command === RUN && filled.length < 2) {
    const executor = await vscode.window.showQuickPick([...EXECUTOR_CHOICES], {
      title: "cint: run with which executor?",
    });
    if (!executor) {
      return undefined;
    }
    filled[1] = executor;
  }
  return filled;
}

// ---- run results

type Json = Record<string, unknown>;

function field<T>(object: Json | undefined, ...names: string[]): T | undefined {
  for (const name of names) {
    if (object && object[name] !== undefined && object[name] !== null) {
      return object[name] as T;
    }
  }
  return undefined;
}

/** `cint/runResult` (schema: cint_ls/server/schema/run-result.schema.json): the program's
 * output, then the server's own texts, never a record formatted here: `report` (the fault or
 * host status exactly as `cint run` prints it), `error` (why there is no result), the
 * executor's `notes`, and `summary` for the notification. */
export function showRunResult(result: Json): void {
  const executor = field<string>(result, "executor") ?? "?";
  const uri = field<string>(result, "uri");
  const name = uri ? decodeURIComponent(uri.replace(/^.*\//, "")) : "";
  const output = field<string>(result, "output") ?? "";
  const report = field<string>(result, "report");
  const error = field<string>(result, "error");
  const summary = field<string>(result, "summary") ?? executor;

  runOutput.appendLine(`── cint run ${name} on ${executor}`.replace(/  +/g, " "));
  const notes = field<string[]>(result, "notes") ?? [];
  for (const line of runResultLines(output, report, error, notes, autoDecision(result.runReport))) {
    runOutput.appendLine(line);
  }
  runOutput.appendLine(summary);
  const traced = traceView?.remember(result) ?? false;
  if (traced) {
    runOutput.appendLine("trace: `cint: Show trace` (or the status bar's cint trace) opens its page");
  }
  runOutput.show(true);

  if (report) {
    const actions = traced ? ["Show trace", "Show output"] : ["Show output"];
    void vscode.window
      .showErrorMessage(`cint run ${summary}`, ...actions)
      .then((choice) => {
        if (choice === "Show trace") {
          void vscode.commands.executeCommand(SHOW_TRACE, result);
        } else if (choice) {
          runOutput.show();
        }
      });
  } else if (error?.includes("cancelled")) {
    // A run stopped by Cancel is what was asked for, not an error.
    void vscode.window.setStatusBarMessage(`cint run ${summary}`, 5000);
  } else if (error) {
    void vscode.window.showErrorMessage(`cint run ${summary}`);
  }
}

/** `cint/compareResult`: whether the executors agree, or their first difference. */
function showCompareResult(result: Json): void {
  const message = field<string>(result, "message") ?? "";
  runOutput.appendLine(`── cint compare: ${message}`);
  for (const run of field<Json[]>(result, "results") ?? []) {
    runOutput.appendLine(`  ${field<string>(run, "summary") ?? field<string>(run, "executor") ?? ""}`);
  }
  runOutput.show(true);
  if (field<boolean>(result, "agree") === false) {
    void vscode.window.showErrorMessage(`cint compare: ${message}`, "Show output")
      .then((choice) => choice && runOutput.show());
  } else {
    void vscode.window.showInformationMessage(`cint compare: ${message}`);
  }
}
