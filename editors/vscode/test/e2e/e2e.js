// Drives code-server (started by run.sh) with headless Chromium through playwright-core, as a
// person would: the mouse and the keyboard on the workbench, nothing through VS Code's API.
// Env: E2E_URL (the workbench with the folder), CHROMIUM, E2E_ARTIFACTS.
"use strict";

const fs = require("fs");
const path = require("path");
const { chromium } = require("playwright-core");

const URL = process.env.E2E_URL;
const ARTIFACTS = process.env.E2E_ARTIFACTS || ".";
const TIMEOUT = Number(process.env.E2E_TIMEOUT_MS || 60000);
// Debian chromium as root, without a network (LANGUAGE.md of the machine: these flags).
const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const checks = [];

function log(message) {
  process.stderr.write(`e2e: ${message}\n`);
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`) }).catch(() => {});
}

async function check(page, name, fn) {
  const started = Date.now();
  try {
    const detail = await fn();
    checks.push({ name, ok: true, detail });
    log(`ok   ${name}${detail ? `: ${detail}` : ""} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  } catch (error) {
    checks.push({ name, ok: false, detail: String(error && error.message ? error.message : error) });
    log(`FAIL ${name}: ${error && error.message ? error.message.split("\n")[0] : error}`);
    await shot(page, `fail-${name.replace(/\W+/g, "-")}`);
  }
}

/** Opens a file of the folder by clicking it in the Explorer. */
async function openFile(page, name) {
  const item = page.locator(".explorer-folders-view .monaco-list-row", { hasText: name }).first();
  await item.waitFor({ state: "visible", timeout: TIMEOUT });
  await item.click();
  await page
    .locator(".tabs-container .tab.active", { hasText: name })
    .waitFor({ state: "visible", timeout: TIMEOUT });
  await page.locator(".monaco-editor .view-lines").first().waitFor({ state: "visible", timeout: TIMEOUT });
}

/** The screen position of the `occurrence`-th `needle` on the editor line whose text is `lineText`. */
async function charPosition(page, lineText, needle) {
  return page.evaluate(
    ({ lineText, needle }) => {
      const norm = (s) => s.replace(/\u00a0/g, " ");
      const editor = document.querySelector(".editor-group-container.active .monaco-editor") ||
        document.querySelector(".monaco-editor");
      for (const line of editor.querySelectorAll(".view-lines .view-line")) {
        const text = norm(line.textContent);
        // Inlay hints (the step ordinals, `#22`, `#{3,26}`) are part of the line's text.
        const withoutHints = text.replace(/#(\d+|\{[\d,]*\}|\?)/g, "");
        if (text.trimEnd() !== lineText && withoutHints.trimEnd() !== lineText) continue;
        let offset = text.indexOf(needle);
        const walker = document.createTreeWalker(line, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (offset < node.length) {
            const range = document.createRange();
            range.setStart(node, offset);
            range.setEnd(node, offset + 1);
            const rect = range.getBoundingClientRect();
            return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
          }
          offset -= node.length;
        }
      }
      return null;
    },
    { lineText, needle },
  );
}

/** Runs a command from the command palette (F1), by its title. */
async function palette(page, title) {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input").first();
  await input.waitFor({ state: "visible", timeout: TIMEOUT });
  await input.fill(`>${title}`);
  // Click the row with exactly this title: a recently used command that also matches
  // comes first, so Enter could run another one.
  const row = page.locator(".quick-input-widget .monaco-list-row")
    .filter({ has: page.getByText(title, { exact: true }) }).first();
  await row.waitFor({ state: "visible", timeout: TIMEOUT });
  await row.click();
}

/** Waits for a row of the Problems panel whose text matches every pattern; returns its text. */
async function problemRow(page, ...patterns) {
  const panel = await problemsText(page);
  const deadline = Date.now() + TIMEOUT;
  let rows = [];
  while (Date.now() < deadline) {
    rows = (await panel.locator(".monaco-list-row").allInnerTexts()).map((t) => t.replace(/\s+/g, " ").trim());
    const found = rows.find((row) => patterns.every((p) => p.test(row)));
    if (found) return found;
    await page.waitForTimeout(250);
  }
  throw new Error(`no problem matching ${patterns.join(", ")}; rows: ${JSON.stringify(rows)}`);
}

async function problemsText(page) {
  const panel = page.locator(".markers-panel");
  if (!(await panel.isVisible().catch(() => false))) {
    await page.keyboard.press("Control+Shift+M");
  }
  await panel.waitFor({ state: "visible", timeout: TIMEOUT });
  return panel;
}

async function main() {
  if (!URL) throw new Error("E2E_URL is not set");
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: FLAGS,
  });
  const context = await browser.newContext({ viewport: { width: 1500, height: 950 } });
  const page = await context.newPage();
  const consoleLines = [];
  page.on("console", (m) => consoleLines.push(`[${m.type()}] ${m.text()}`));
  try {
    log(`open ${URL}`);
    await page.goto(URL, { waitUntil: "domcontentloaded", timeout: TIMEOUT });
    await page.locator(".monaco-workbench").waitFor({ state: "visible", timeout: 2 * TIMEOUT });
    await shot(page, "0-workbench");

    await check(page, "open same_c5010.ci as cint", async () => {
      await openFile(page, "same_c5010.ci");
      const mode = page.locator('.statusbar-item[id="status.editor.mode"]');
      await mode.filter({ hasText: "cint" }).waitFor({ state: "visible", timeout: TIMEOUT });
      return `language mode: ${(await mode.innerText()).trim()}`;
    });

    await check(page, "TextMate highlighting", async () => {
      // Tokens get their own spans with classes mtkN: a kernel line has several colours.
      const line = page.locator(".monaco-editor .view-line", { hasText: "kernel copy1" }).first();
      await line.waitFor({ state: "visible", timeout: TIMEOUT });
      const classes = await line.locator("span > span").evaluateAll((spans) =>
        [...new Set(spans.map((s) => s.className))]);
      if (classes.length < 3) throw new Error(`too few token classes on the kernel line: ${classes}`);
      return `${classes.length} token classes on the kernel line`;
    });

    await check(page, "C5010 diagnostic", async () => {
      await page.locator(".monaco-editor .squiggly-error").first().waitFor({ state: "attached", timeout: TIMEOUT });
      const text = await problemRow(page, /C5010/, /\bLn \d+, Col \d+/);
      if (!/\[Ln 7, Col 14\]/.test(text)) throw new Error(`the C5010 row is not at 7:14: ${text}`);
      await shot(page, "1-c5010");
      return text;
    });

    await check(page, "hover with a step ordinal", async () => {
      await openFile(page, "heat_e1.ci");
      const line = "        I64 flux = div_round(kn * lap, kd, half_even);";
      let where = null;
      const deadline = Date.now() + TIMEOUT;
      while (!where && Date.now() < deadline) {
        where = await charPosition(page, line, "*");
        if (!where) await page.waitForTimeout(250);
      }
      if (!where) {
        const lines = await page.evaluate(() => [...document.querySelectorAll(".monaco-editor .view-lines .view-line")]
          .map((l) => JSON.stringify(l.textContent)));
        throw new Error(`line 13 of heat_e1.ci is not on the screen; lines: ${lines.join(" | ")}`);
      }
      const hover = page.locator(".monaco-hover:not(.hidden)", { hasText: "step 22" }).first();
      for (let attempt = 0; attempt < 10; attempt++) {
        await page.mouse.move(where.x - 40, where.y + 40);
        await page.mouse.move(where.x, where.y, { steps: 4 });
        try {
          await hover.waitFor({ state: "visible", timeout: 5000 });
          break;
        } catch (error) {
          if (attempt === 9) throw error;
        }
      }
      await shot(page, "2-hover");
      return (await hover.innerText()).replace(/\s+/g, " ").trim().slice(0, 160);
    });

    await check(page, "Run code lens", async () => {
      await page.keyboard.press("Escape");
      // The lenses sit above the entry (`step();`, the last line): go there.
      await page.locator(".editor-group-container.active .monaco-editor .view-lines").first().click();
      await page.keyboard.press("Control+End");
      const lens = page.locator(".monaco-editor .codelens-decoration a", { hasText: "Run" }).first();
      await lens.waitFor({ state: "visible", timeout: TIMEOUT });
      const all = await page.locator(".monaco-editor .codelens-decoration").allInnerTexts();
      await shot(page, "3-codelens");
      return all.map((t) => t.replace(/\s+/g, " ").trim()).filter((t) => t && t !== "|").join(" | ");
    });

    await check(page, "Run shows the fault", async () => {
      const lens = page.locator(".monaco-editor .codelens-decoration a", { hasText: "Run on cpu-sir-interp" }).first();
      await lens.click();
      const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "E_OVERFLOW" }).first();
      await toast.waitFor({ state: "visible", timeout: TIMEOUT });
      const text = (await toast.innerText()).replace(/\s+/g, " ").trim();
      const row = await problemRow(page, /E_OVERFLOW/, /\bLn \d+, Col \d+/);
      if (!/\[Ln 13, Col 33\]/.test(row)) throw new Error(`the fault is not at 13:33: ${row}`);
      await shot(page, "4-run");
      return `${text.slice(0, 160)} / problem: ${row}`;
    });

    await check(page, "run output channel", async () => {
      await palette(page, "cint: Show run output");
      const output = page.locator(".output-view, .part.panel", { hasText: "cint run heat_e1.ci" }).first();
      await output.waitFor({ state: "visible", timeout: TIMEOUT });
      const text = await output.innerText();
      if (!text.includes("fault[E_OVERFLOW]")) throw new Error(`output: ${text.slice(0, 300)}`);
      await shot(page, "5-output");
      return "cint output channel shows the run and its fault";
    });

    await check(page, "cint: Run from the command palette", async () => {
      await palette(page, "Notifications: Clear All Notifications");
      await page.locator(".notifications-toasts .notification-toast").first()
        .waitFor({ state: "hidden", timeout: TIMEOUT });
      await page.locator(".editor-group-container.active .monaco-editor .view-lines").first().click();
      await palette(page, "cint: Run");
      // The extension asks for the executor.
      const pick = page.locator(".quick-input-widget .monaco-list-row", { hasText: "cpu-sir-interp" }).first();
      await pick.waitFor({ state: "visible", timeout: TIMEOUT });
      await pick.click();
      const toast = page.locator(".notifications-toasts .notification-toast", { hasText: "E_OVERFLOW" }).first();
      await toast.waitFor({ state: "visible", timeout: TIMEOUT });
      await shot(page, "6-palette-run");
      return (await toast.innerText()).replace(/\s+/g, " ").trim().slice(0, 120);
    });
  } finally {
    fs.writeFileSync(path.join(ARTIFACTS, "browser-console.log"), consoleLines.join("\n"));
    await browser.close();
  }
  const failed = checks.filter((c) => !c.ok);
  fs.writeFileSync(path.join(ARTIFACTS, "results.json"), JSON.stringify(checks, null, 2));
  console.log(`e2e: ${checks.length - failed.length} passed, ${failed.length} failed`);
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    log(error && error.stack ? error.stack : String(error));
    process.exit(1);
  },
);
