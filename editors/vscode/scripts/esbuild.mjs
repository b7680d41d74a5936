// Bundles the extension's client (src/extension.ts and what it imports from node_modules:
// vscode-languageclient, @vscode/python-extension) into one file, dist/extension.js, so
// that the .vsix carries no node_modules. `vscode` is the editor's own module.
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");

await esbuild.build({
  entryPoints: ["src/extension.ts"],
  bundle: true,
  outfile: "dist/extension.js",
  platform: "node",
  format: "cjs",
  target: "node18",
  external: ["vscode"],
  minify: production,
  sourcemap: production ? false : "linked",
  logLevel: "warning",
});
