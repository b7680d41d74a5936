#!/usr/bin/env bash
# End-to-end test of the VS Code extension in a real VS Code: code-server, driven by headless
# Debian Chromium through playwright-core (e2e.js), as a person uses it. Only the per-platform
# .vsix is installed (the server bundled in it from the package's wheel), and code-server runs
# on a PATH with no cint-ls and a python3 that has none installed: the extension must start
# the server it brings.
#
#   editors/vscode/test/e2e/run.sh [--short] [--vsix FILE]
#
#   --short      11 of the checks, about 20 s quicker: the bundled server, C5010 and its
#                related locations, a step hover, the gpu-cuda lens labelled simulated, a lens
#                after inserting unsaved lines, cancelling an endless run, a quick fix, an
#                untitled buffer's step hover, the trace page's legend colours and ring in
#                its webview
#   (default)    the full suite (CI runs it): also TextMate highlighting, the token
#                inspector's semantic scopes, Run's fault, the run output, a gpu-cuda run,
#                cint: Cancel run and cint: Run from the palette
#   --vsix FILE  a .vsix built with its server (CI's); without it the .vsix is built here as
#                CI does: python3 -m build, scripts/bundle_server.py --wheel, npm run build,
#                vsce package --target linux-x64 (about a minute)
#
# Needs Node.js 20 with npm, a python3 (3.11+) with `build` for the wheel, Debian's chromium
# (installed with apt-get as root when missing) and code-server: $CODE_SERVER, else
# the repository's scripts/install-code-server (about 3.5 minutes the first time, cached in
# ~/.cache/cint-ls/code-server).
# Environment: CODE_SERVER (a launcher), CHROMIUM (default /usr/bin/chromium), E2E_PYTHON (the
# python3 the extension finds; default the base interpreter of python3, which must not have
# cint-ls installed), E2E_ARTIFACTS (screenshots, logs, results.json; default a new temporary
# folder, printed at the end).
# Exit status: 0 when every check of the suite passed, 1 when one failed, 2 when something it
# needs is missing.
set -euo pipefail
ext=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
repo=$(cd "$ext/../.." && pwd)

say() { printf 'e2e: %s\n' "$*" >&2; }
now() { date +%s; }

suite=full
vsix=${CINT_VSIX:-}
while [[ $# -gt 0 ]]; do
  case $1 in
    --short) suite=short ;;
    --full) suite=full ;;
    --vsix) vsix=$2; shift ;;
    *) say "usage: run.sh [--short] [--vsix FILE]"; exit 2 ;;
  esac
  shift
done
t0=$(now)

# The python3 the extension will find: no cint-ls of its own, 3.11 or later.
python=${E2E_PYTHON:-$(python3 -c 'import os, sys; print(os.path.realpath(getattr(sys, "_base_executable", sys.executable)))')}
if ! (cd / && "$python" -P -c 'import sys; sys.exit(sys.version_info < (3, 11))'); then
  say "$python is not Python 3.11 or later: set E2E_PYTHON"
  exit 2
fi
if (cd / && "$python" -P -c 'import cint_ls' 2>/dev/null); then
  say "$python has cint-ls installed: set E2E_PYTHON to an interpreter without it"
  exit 2
fi

chromium=${CHROMIUM:-/usr/bin/chromium}
if [[ ! -x $chromium ]]; then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
    say "installing Debian's chromium"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    say "no Chromium at $chromium: apt-get install chromium, or set CHROMIUM"
    exit 2
  fi
fi

code_server=${CODE_SERVER:-}
if [[ -z $code_server ]]; then
  installer=$repo/scripts/install-code-server
  if [[ ! -x $installer ]]; then
    say "no code-server: set CODE_SERVER, or provide $installer"
    exit 2
  fi
  say "code-server: $installer (about 3.5 minutes the first time)"
  code_server=$("$installer")
fi
t_install=$(now)

cd "$ext"
if [[ ! -d node_modules/vscode-languageclient || ! -d node_modules/playwright-core ]]; then
  say "npm ci"
  npm ci --no-audit --no-fund >/dev/null
fi

work=$(mktemp -d)
artifacts=${E2E_ARTIFACTS:-$work/artifacts}
mkdir -p "$artifacts" "$work/user/User" "$work/extensions" "$work/folder" "$work/bin"
server_pid=
cleanup() {
  if [[ -n $server_pid ]]; then
    # code-server runs in a session of its own: end it with its extension host and cint-ls.
    kill -- "-$server_pid" 2>/dev/null || kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work/user" "$work/extensions" "$work/dist"
}
trap cleanup EXIT

if [[ -z $vsix ]]; then
  say "build the .vsix as CI does: the wheel, bundled/libs from it, the per-platform package"
  python3 -m build --outdir "$work/dist" "$repo" >"$artifacts/build.log" 2>&1 || { tail -20 "$artifacts/build.log" >&2; exit 1; }
  wheel=$(find "$work/dist" -name 'cint_ls-*.whl' -print -quit)
  {
    npm run --silent build &&
      python3 scripts/bundle_server.py --wheel "$wheel" &&
      npx vsce package --target linux-x64 --out "$work/cint-linux-x64.vsix" </dev/null
  } >"$artifacts/package.log" 2>&1 || { tail -30 "$artifacts/package.log" >&2; exit 1; }
  vsix=$work/cint-linux-x64.vsix
fi
[[ -f $vsix ]] || { say "no .vsix at $vsix"; exit 2; }
vsix=$(cd "$(dirname "$vsix")" && pwd)/$(basename "$vsix")
if ! python3 -c 'import sys, zipfile; sys.exit("extension/bundled/libs/cint_ls/__init__.py" not in zipfile.ZipFile(sys.argv[1]).namelist())' "$vsix"; then
  say "$vsix has no bundled server (scripts/bundle_server.py before vsce package)"
  exit 2
fi
t_package=$(now)

# code-server's PATH: node and python3 (without cint-ls) in a folder of their own, then the
# system's folders less any that has a cint-ls.
ln -s "$(command -v node)" "$work/bin/node"
ln -s "$python" "$work/bin/python3"
clean=$work/bin
for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
  [[ -d $dir && ! -e $dir/cint-ls ]] && clean=$clean:$dir
done
if PATH=$clean command -v cint-ls >/dev/null; then
  say "cint-ls is on the clean PATH ($clean)"
  exit 2
fi

cp "$repo/tests/conformance/same_c5010.ci" "$repo/tests/conformance/heat_e1.ci" "$work/folder/"
# An endless loop, to cancel; a typo with a did-you-mean quick fix (C2001).
printf 'void spin() {\n    I64 i = 0;\n    while (true) {\n        i = i +%% 1;\n    }\n}\nspin();\n' >"$work/folder/spin.ci"
printf 'void go() {\n    I64 count = 1;\n    I64 x = cout + 1;\n}\ngo();\n' >"$work/folder/typo.ci"
# No cint.server.path: the bundled server. The editor types what the test inserts as it is
# (no auto-closing, no auto-indent, no suggestions); a new untitled file is cint. The
# terminal draws its text in the DOM (no GPU renderer), so a check can read it.
cat >"$work/user/User/settings.json" <<EOF
{
  "cint.trace.server": "messages",
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.editor.untitled.hint": "hidden",
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "editor.hover.delay": 200,
  "editor.minimap.enabled": false,
  "editor.autoClosingBrackets": "never",
  "editor.autoClosingQuotes": "never",
  "editor.autoClosingOvertype": "never",
  "editor.autoSurround": "never",
  "editor.autoIndent": "none",
  "editor.formatOnType": false,
  "editor.quickSuggestions": { "other": "off", "comments": "off", "strings": "off" },
  "editor.suggestOnTriggerCharacters": false,
  "editor.acceptSuggestionOnEnter": "off",
  "files.defaultLanguage": "cint",
  "files.autoSave": "off",
  "chat.disableAIFeatures": true,
  "window.commandCenter": false,
  "terminal.integrated.gpuAcceleration": "off"
}
EOF

say "install only the .vsix into code-server: $vsix"
env -u VIRTUAL_ENV -u PYTHONPATH PATH="$clean" "$code_server" --user-data-dir "$work/user" \
  --extensions-dir "$work/extensions" --install-extension "$vsix" --force >"$artifacts/install.log" 2>&1 || {
  cat "$artifacts/install.log" >&2
  exit 1
}

port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
say "start code-server on 127.0.0.1:$port, PATH=$clean"
env -u VIRTUAL_ENV -u PYTHONPATH PATH="$clean" setsid "$code_server" --config "$work/config.yaml" --auth none \
  --bind-addr "127.0.0.1:$port" --disable-telemetry --disable-update-check --disable-workspace-trust \
  --user-data-dir "$work/user" --extensions-dir "$work/extensions" \
  "$work/folder" >"$artifacts/code-server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 240); do
  if node -e "require('http').get('http://127.0.0.1:$port/healthz',r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1))"; then
    break
  fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    cat "$artifacts/code-server.log" >&2
    say "code-server exited"
    exit 1
  fi
  sleep 0.5
done
t_started=$(now)

say "drive it with $chromium (suite $suite)"
status=0
CHROMIUM=$chromium E2E_URL="http://127.0.0.1:$port/?folder=$work/folder" E2E_ARTIFACTS=$artifacts \
  E2E_SUITE=$suite E2E_SESSION=$server_pid E2E_USER_DIR=$work/user E2E_GPU=$([[ -e /dev/nvidiactl ]] && echo 1 || echo 0) \
  node "$ext/test/e2e/e2e.js" || status=$?
t_done=$(now)
# The extension host's and the extension's logs, for a failure's diagnosis.
find "$work/user" -name '*.log' -path '*exthost*' -exec cp {} "$artifacts/" \; 2>/dev/null || true
find "$work/user" -name '*cint*.log' -exec cp {} "$artifacts/" \; 2>/dev/null || true
say "times: code-server ready $((t_install - t0)) s, .vsix $((t_package - t_install)) s," \
  "install and start $((t_started - t_package)) s, checks $((t_done - t_started)) s; total $((t_done - t0)) s"
say "artifacts (screenshots, logs, results.json): $artifacts"
if [[ $status -ne 0 ]]; then
  say "FAILED (suite $suite)"
fi
exit $status
