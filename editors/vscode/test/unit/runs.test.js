// Unit test of src/runs.ts (build first: `npm run build`), the part of the extension that
// makes a Run cancellable, with the real vscode-jsonrpc (what vscode-languageclient sends
// requests with) against the real cint-ls: a Run of an endless loop, cancelled by
// `Runs.cancelAll` (what `cint: Cancel run` calls) and by a linked token (the notification's
// Cancel button), answers RequestCancelled within 1 s and leaves no child process of the
// server (Linux /proc). `npm test`; the server command is $CINT_LS_CMD (a JSON list),
// else `cint-ls`. Prints one JSON line of what it measured; exits non-zero on a failure.

"use strict";

const assert = require("node:assert/strict");
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const rpc = require("vscode-jsonrpc/node");
const { Runs, isCancelled, runTitle, stageMessage } = require("../../out/runs.js");

const LOOP = "void spin() {\n    I64 i = 0;\n    while (true) {\n        i = i +% 1;\n    }\n}\nspin();\n";
const URI = "file:///cint-vscode-unit/spin.ci";

function pureParts() {
  assert.equal(runTitle("cint.run", ["u", "cpu-c17"]), "cint: run on cpu-c17");
  assert.equal(runTitle("cint.run", ["u", "gpu-cuda", "twice"]), "cint: run twice() on gpu-cuda");
  assert.equal(runTitle("cint.run", ["u"]), "cint: run on auto");
  assert.equal(runTitle("cint.compareExecutors", ["u", "hello"]), "cint: compare executors hello()");
  assert.equal(stageMessage({ kind: "report", message: "running" }), "running");
  assert.equal(stageMessage({ kind: "begin", title: "cint: run on cpu-c17" }), undefined);
  assert.equal(stageMessage(null), undefined);
  assert.ok(isCancelled({ code: -32800 }));
  assert.ok(isCancelled({ name: "Canceled" }));
  assert.ok(!isCancelled({ code: -32602 }));
  assert.ok(!isCancelled(undefined));
}

/** The pids of the run children of `parent` (the isolated runs' processes), without the
 * spare the server keeps started for the next Run while it waits (`--spare`, until it is
 * named `cint-run`). */
function runChildren(parent) {
  const found = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmdline = fs.readFileSync(`/proc/${name}/cmdline`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const waiting = cmdline.includes("--spare") && comm !== "cint-run";
      if (ppid === parent && cmdline.includes("cint_ls.running.isolated") && !waiting) {
        found.push(Number(name));
      }
    } catch {
      // the process ended while we looked
    }
  }
  return found;
}

function alive(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function waitFor(what, ms, predicate) {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Starts a run of the endless loop; resolves once its child runs. */
async function startRun(connection, server, runs, stages, token, linked) {
  const before = stages.length;
  const run = runs.run(
    (cancellation) =>
      connection.sendRequest(
        "workspace/executeCommand",
        { command: "cint.run", arguments: [URI, "cpu-sir-interp"], workDoneToken: token },
        cancellation,
      ),
    linked,
  );
  run.catch(() => undefined); // awaited later
  await waitFor("the run's child", 30000, () =>
    stages.slice(before).some((s) => s.token === token && s.message === "running") && runChildren(server.pid).length > 0);
  return { run, children: runChildren(server.pid) };
}

/** Cancels with `cancel`, then measures how long the answer and the children's end took. */
async function cancelled(started, cancel) {
  const { run, children } = started;
  const at = Date.now();
  cancel();
  let error;
  try {
    await run;
  } catch (e) {
    error = e;
  }
  const answered = Date.now() - at;
  await waitFor("the run's child to end", 1000, () => children.every((pid) => !alive(pid)));
  return { answered, gone: Date.now() - at, cancelled: isCancelled(error), children };
}

async function main() {
  pureParts();
  const command = JSON.parse(process.env.CINT_LS_CMD || '["cint-ls"]');
  const server = spawn(command[0], command.slice(1), { stdio: ["pipe", "pipe", "inherit"] });
  const connection = rpc.createMessageConnection(
    new rpc.StreamMessageReader(server.stdout),
    new rpc.StreamMessageWriter(server.stdin),
  );
  const stages = [];
  connection.onRequest("workspace/configuration", (params) => params.items.map(() => ({ run: { timeLimit: 60 } })));
  connection.onRequest(() => null); // registerCapability, codeLens/refresh, ...
  connection.onNotification("$/progress", (params) => {
    const message = stageMessage(params.value);
    if (message) {
      stages.push({ token: params.token, message });
    }
  });
  connection.onNotification(() => undefined);
  connection.listen();
  try {
    await connection.sendRequest("initialize", {
      processId: process.pid,
      rootUri: null,
      capabilities: { workspace: { configuration: true }, window: { workDoneProgress: true } },
    });
    connection.sendNotification("initialized", {});
    connection.sendNotification("textDocument/didOpen", {
      textDocument: { uri: URI, languageId: "cint", version: 1, text: LOOP },
    });

    const runs = new Runs(() => new rpc.CancellationTokenSource());
    // `cint: Cancel run`.
    const byCommand = await cancelled(await startRun(connection, server, runs, stages, "run-1"), () =>
      assert.equal(runs.cancelAll(), 1));
    assert.equal(runs.size, 0);
    // The notification's Cancel button: a token linked to the run's own.
    const button = new rpc.CancellationTokenSource();
    const byButton = await cancelled(await startRun(connection, server, runs, stages, "run-2", button.token), () =>
      button.cancel());
    assert.equal(runs.size, 0);
    assert.equal(runs.cancelAll(), 0);
    // A failed request is not a cancellation.
    let invalid;
    try {
      await connection.sendRequest("workspace/executeCommand", { command: "cint.run", arguments: [URI, 5] });
    } catch (e) {
      invalid = e;
    }
    assert.ok(invalid && !isCancelled(invalid), "an InvalidParams answer is an error, not a cancellation");

    const seen = [...new Set(stages.filter((s) => s.token === "run-1").map((s) => s.message))];
    console.log(JSON.stringify({ byCommand, byButton, stages: seen }));
    for (const result of [byCommand, byButton]) {
      assert.ok(result.cancelled, "the request ends as cancelled");
      assert.ok(result.answered < 1000, `answered in ${result.answered} ms`);
      assert.ok(result.gone < 1000, `child gone in ${result.gone} ms`);
      assert.ok(result.children.length === 1, `one run child: ${result.children}`);
    }
    assert.deepEqual(seen, ["compiling", "running"]);
    await connection.sendRequest("shutdown");
    connection.sendNotification("exit");
  } finally {
    setTimeout(() => server.kill("SIGKILL"), 2000).unref();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error && error.stack ? error.stack : error);
    process.exit(1);
  },
);
