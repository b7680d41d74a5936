// Which cint-ls the extension starts, and with which Python. No `vscode` import: the
// extension gathers the candidates (settings, the Python extension's interpreter) and this
// module probes them, so node tests (test/unit/server.test.js) run it as it is.
//
// The order:
//   1. `cint.server.path`, when it is set: the user named a server, that one runs;
//   2. the cint-ls bundled with the extension (`bundled/libs`, built from the package's
//      wheel by scripts/bundle_server.py), run by the interpreter the Python extension has
//      selected for the workspace, when it is Python 3.11 or later;
//   3. the same bundle run by `python3` on PATH;
//   4. `cint-ls` on PATH (a checkout or a package without a bundle).
// The first that answers the probe (the versions) is started; the rest are only reported.

import { execFile } from "child_process";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

export interface ServerChoice {
  command: string;
  args: string[];
  /** Added to the server's environment (PYTHONPATH for the bundle). */
  env: Record<string, string>;
  /** Where the choice came from, for the log: `cint.server.path`, `the Python extension`… */
  source: string;
  serverVersion: string;
  python?: string;
  pythonVersion?: string;
}

export interface Candidates {
  /** `cint.server.path`, trimmed ("" when unset). */
  serverPath: string;
  /** The extension's `bundled/libs` folder (may not exist). */
  bundledLibs: string;
  /** The interpreter the Python extension selected, when it is installed and has one. */
  pythonExtensionInterpreter?: string;
  /** PATH to search for `python3` and `cint-ls` (process.env.PATH by default). */
  searchPath?: string;
}

export interface Attempt {
  source: string;
  command: string;
  problem?: string;
  choice?: ServerChoice;
}

export const MIN_PYTHON: [number, number] = [3, 11];

// Runs in the candidate interpreter with PYTHONPATH=bundled/libs: the versions, and every
// compiled module the server loads (the grammar's abi3 binding, tree-sitter, cffi), so
// that an interpreter the bundle has no binaries for is refused here, not at the first
// keystroke. The working directory never shadows the bundle (sys.path[0] dropped).
const PROBE = [
  "import json, sys",
  "sys.path[:] = [p for p in sys.path if p not in ('', '.')]",
  "out = {'python': '%d.%d.%d' % sys.version_info[:3], 'executable': sys.executable}",
  `if sys.version_info < (${MIN_PYTHON[0]}, ${MIN_PYTHON[1]}):`,
  `    out['error'] = 'Python ${MIN_PYTHON[0]}.${MIN_PYTHON[1]} or later is needed'`,
  "else:",
  "    try:",
  "        import cint_ls, cint_ls.syntax._binding, tree_sitter, _cffi_backend",
  "        out['server'] = cint_ls.__version__",
  "        out['file'] = cint_ls.__file__",
  "    except Exception as e:",
  "        out['error'] = '%s: %s' % (type(e).__name__, e)",
  "print(json.dumps(out))",
].join("\n");

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { env, cwd: os.tmpdir(), timeout: 20000, encoding: "utf8" }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout: stdout ?? "", stderr: stderr || (error && typeof error.code !== "number" ? error.message : "") });
    });
  });
}

/** An executable named `name` on `searchPath`, or undefined. */
export function which(name: string, searchPath: string | undefined = process.env.PATH): string | undefined {
  if (name.includes(path.sep)) {
    return isExecutable(name) ? name : undefined;
  }
  for (const dir of (searchPath ?? "").split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, name))) {
      return path.join(dir, name);
    }
  }
  return undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function bundledEnv(bundledLibs: string, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const rest = base.PYTHONPATH ? `${path.delimiter}${base.PYTHONPATH}` : "";
  // The bundle first: an older cint-ls installed into the interpreter never shadows it.
  return { PYTHONPATH: `${bundledLibs}${rest}`, PYTHONNOUSERSITE: "1" };
}

/** The bundled cint-ls under `python`: its choice, or why it does not fit. */
export async function probeBundled(python: string, bundledLibs: string, source: string): Promise<Attempt> {
  const attempt: Attempt = { source, command: python };
  const env = bundledEnv(bundledLibs);
  const result = await run(python, ["-c", PROBE], { ...process.env, ...env });
  let answer: Record<string, string> | undefined;
  try {
    answer = JSON.parse(result.stdout.trim().split("\n").pop() ?? "");
  } catch {
    answer = undefined;
  }
  if (!answer) {
    attempt.problem = `did not run (${(result.stderr || `exit ${result.code}`).trim().split("\n").pop()})`;
  } else if (answer.error) {
    attempt.problem = `Python ${answer.python}: ${answer.error}`;
  } else {
    attempt.choice = {
      // -P: the server's working directory (a workspace, maybe a checkout of cint-ls) is
      // never on sys.path; its runs' children inherit PYTHONPATH and find the bundle too.
      command: python,
      args: ["-P", "-m", "cint_ls.server"],
      env,
      source,
      serverVersion: answer.server,
      python: answer.executable || python,
      pythonVersion: answer.python,
    };
  }
  return attempt;
}

/** A `cint-ls` executable: its version (`cint-ls --version`), or why it does not fit. */
export async function probeExecutable(command: string, source: string): Promise<Attempt> {
  const attempt: Attempt = { source, command };
  const result = await run(command, ["--version"], process.env);
  const match = /^cint-ls (\S+)/m.exec(result.stdout);
  if (result.code !== 0 || !match) {
    attempt.problem = `\`${command} --version\` failed (${(result.stderr || `exit ${result.code}`).trim().split("\n").pop()})`;
  } else {
    attempt.choice = { command, args: [], env: {}, source, serverVersion: match[1] };
  }
  return attempt;
}

/** The server to start, and every attempt in order (for the log and the error message). */
export async function chooseServer(candidates: Candidates): Promise<{ choice?: ServerChoice; attempts: Attempt[] }> {
  const attempts: Attempt[] = [];
  const decide = (attempt: Attempt) => {
    attempts.push(attempt);
    return attempt.choice;
  };
  if (candidates.serverPath) {
    // An explicit setting is never second-guessed: it runs, or the error says why.
    const choice = decide(await probeExecutable(candidates.serverPath, "cint.server.path"));
    return { choice, attempts };
  }
  if (fs.existsSync(path.join(candidates.bundledLibs, "cint_ls"))) {
    if (candidates.pythonExtensionInterpreter) {
      const choice = decide(await probeBundled(candidates.pythonExtensionInterpreter, candidates.bundledLibs,
        "the Python extension's interpreter"));
      if (choice) {
        return { choice, attempts };
      }
    }
    const python3 = which("python3", candidates.searchPath);
    if (python3) {
      const choice = decide(await probeBundled(python3, candidates.bundledLibs, "python3 on PATH"));
      if (choice) {
        return { choice, attempts };
      }
    } else {
      attempts.push({ source: "python3 on PATH", command: "python3", problem: "not found" });
    }
  } else {
    attempts.push({ source: "the bundled server", command: candidates.bundledLibs, problem: "this build of the extension has none" });
  }
  const onPath = which("cint-ls", candidates.searchPath);
  if (onPath) {
    const choice = decide(await probeExecutable(onPath, "cint-ls on PATH"));
    if (choice) {
      return { choice, attempts };
    }
  } else {
    attempts.push({ source: "cint-ls on PATH", command: "cint-ls", problem: "not found" });
  }
  return { attempts };
}

/** One line for the output channel: which server, which interpreter, which versions. */
export function describeChoice(choice: ServerChoice, extensionVersion: string): string {
  const python = choice.python ? ` with Python ${choice.pythonVersion} (${choice.python}, ${choice.source})` : ` (${choice.source})`;
  const bundled = choice.env.PYTHONPATH ? "the cint-ls bundled with the extension" : `\`${choice.command}\``;
  const mismatch = choice.serverVersion !== extensionVersion ? ` (the extension is ${extensionVersion}: versions differ)` : "";
  return `cint: starting ${bundled}, cint-ls ${choice.serverVersion}${mismatch}${python}`;
}

export function describeAttempts(attempts: Attempt[]): string[] {
  return attempts.map((a) => `  ${a.source} (${a.command}): ${a.problem ?? "ok"}`);
}

/** The debug adapter beside the language server `choice` starts: `cint_ls.debug` under
 * the same interpreter and bundle, or `cint-debug` beside a `cint-ls` executable (else on
 * PATH). */
export function debugAdapterOf(choice: ServerChoice): { command: string; args: string[]; env: Record<string, string> } {
  const module = choice.args.indexOf("cint_ls.server");
  if (module >= 0) {
    const args = [...choice.args];
    args[module] = "cint_ls.debug";
    return { command: choice.command, args, env: choice.env };
  }
  const beside = path.join(path.dirname(choice.command), "cint-debug");
  return { command: path.isAbsolute(choice.command) && isExecutable(beside) ? beside : "cint-debug", args: [], env: choice.env };
}
