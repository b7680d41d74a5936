/** The trace page of a run in a webview (no `vscode` import: node tests load it).
 *
 * The server's `cint/runResult` has `trace` (the lines of `cint run --trace`, docs/trace.md),
 * and the command `cint.tracePage` [uri, trace] answers the self-contained page, `{html}`
 * (cint_ls/running/trace_page.py: the trace inlined, the script and styles inline, nothing
 * fetched). A webview shows it with a Content-Security-Policy that lets only the page's own
 * inline script and style run: a fresh nonce, sent with the command (`[uri, trace, {nonce}]`),
 * which the server puts on each of the page's `<script>` and `<style>` elements (never
 * `'unsafe-inline'`), and nothing loaded from anywhere (`default-src 'none'`; images only as
 * `data:`, which the page's canvases do not need but its legend may). The webview changes
 * nothing of the page's text but its policy: the trace's own text (a file named
 * `<!--<script>`) stays exactly as the server escaped it. */

type Json = Record<string, unknown>;

/** A run result's trace: its `trace` when it is a non-empty list of trace lines, else
 * undefined (an older server, or a result without one). */
export function traceOf(result: unknown): Json[] | undefined {
  if (typeof result !== "object" || result === null) {
    return undefined;
  }
  const trace = (result as Json).trace;
  if (!Array.isArray(trace) || trace.length === 0) {
    return undefined;
  }
  const lines = trace as unknown[];
  return lines.every((line) => typeof line === "object" && line !== null && !Array.isArray(line))
    ? (lines as Json[])
    : undefined;
}

/** The arguments of `cint.tracePage` for a run result (with the webview's nonce, when
 * given), or an Error that says what is missing. */
export function tracePageArguments(result: unknown, nonce?: string): [string, Json[]] | [string, Json[], Json] | Error {
  if (typeof result !== "object" || result === null || Array.isArray(result)) {
    return new Error("cint: Show trace needs a run result (run the file first)");
  }
  const uri = (result as Json).uri;
  if (typeof uri !== "string" || uri === "") {
    return new Error("cint: the run result has no document URI");
  }
  const trace = traceOf(result);
  if (!trace) {
    return new Error("cint: the run result has no trace (a server older than the trace, or a malformed result)");
  }
  return nonce === undefined ? [uri, trace] : [uri, trace, { nonce }];
}

/** The page's HTML from the command's answer, or an Error; with `nonce`, the page's own
 * script must carry it (a server that ignores the nonce sends a page the policy stops). */
export function pageHtml(answer: unknown, nonce?: string): string | Error {
  const html = typeof answer === "object" && answer !== null ? (answer as Json).html : undefined;
  if (typeof html !== "string" || !/<html[\s>]/i.test(html)) {
    return new Error("cint: the server's cint.tracePage gave no page");
  }
  if (nonce !== undefined && !html.includes(`<script nonce="${nonce}">`)) {
    return new Error("cint: the server's page does not carry the webview's nonce (a server older than the extension?)");
  }
  return html;
}

/** The policy of the webview: only the elements that carry `nonce` run or style. */
export function contentSecurityPolicy(nonce: string): string {
  return `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; img-src data:`;
}

/** A nonce: 32 characters of base64url from `random` (crypto's randomBytes in the extension). */
export function makeNonce(random: (size: number) => Uint8Array): string {
  return Buffer.from(random(24)).toString("base64url");
}

const CSP_META = /<meta\s+http-equiv=["']Content-Security-Policy["'][^>]*>/gi;

/** The page for a webview, rendered by the server with `nonce` on its own elements: its
 * policy replaced by the nonce's (one policy, first in `<head>`) and nothing else changed.
 * Only the `<meta>` policy elements of the page's head are touched: the trace's text, in
 * the body, is never rewritten (a nonce added inside it broke JSON.parse, issue 28). */
export function webviewHtml(html: string, nonce: string): string {
  if (!/^[A-Za-z0-9_-]{16,}$/.test(nonce)) {
    throw new Error("webviewHtml: the nonce must be 16 or more base64url characters");
  }
  const meta = `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(nonce)}">`;
  const split = html.search(/<\/head>/i);
  const head = split < 0 ? "" : html.slice(0, split).replace(CSP_META, "");
  const page = split < 0 ? html : head + html.slice(split);
  if (/<head[^>]*>/i.test(head)) {
    return page.replace(/<head[^>]*>/i, (tag) => `${tag}\n${meta}`);
  }
  return `${meta}\n${page}`;
}

/** The title of the webview: `cint trace: heat_e1.ci`. */
export function traceTitle(uri: string): string {
  const name = decodeURIComponent(uri.replace(/[?#].*$/, "").replace(/^.*\//, ""));
  return `cint trace: ${name || "run"}`;
}
