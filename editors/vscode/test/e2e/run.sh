#!/usr/bin/env bash
# End-to-end test of the VS Code extension in a real VS Code: code-server, driven by headless
# Debian Chromium through playwright-core. It packages the extension, installs the .vsix into
# a fresh code-server profile, opens same_c5010.ci and heat_e1.ci, and checks that the C5010
# diagnostic, a hover with a step ordinal and the Run code lens appear, then clicks Run and
# waits for the fault's notification.
#
#   editors/vscode/test/e2e/run.sh            (from anywhere; about 1 minute once installed)
#
# Needs Node.js 20 with npm, and cint-ls: $CINT_LS, else `cint-ls` on PATH. Installs what is
# missing: the extension's node_modules (npm ci), Debian's chromium (apt-get, as root) and
# code-server (../shared/tools/install-code-server beside the repository, about 5 minutes the
# first time, cached in ~/.cache/code-server-e2e).
# Environment: CINT_LS, CHROMIUM (default /usr/bin/chromium), CODE_SERVER (a launcher),
# E2E_ARTIFACTS (screenshots and logs; default a new temporary folder, printed at the end).
set -euo pipefail
ext=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
repo=$(cd "$ext/../.." && pwd)

say() { printf 'e2e: %s\n' "$*" >&2; }

cint_ls=${CINT_LS:-$(command -v cint-ls || true)}
if [[ -z $cint_ls || ! -x $cint_ls ]]; then
  say "cint-ls not found: pip install the repository (python3 -m pip install .) or set CINT_LS"
  exit 2
fi
cint_ls=$(cd "$(dirname "$cint_ls")" && pwd)/$(basename "$cint_ls")

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
  installer=$repo/../shared/tools/install-code-server
  if [[ ! -x $installer ]]; then
    say "no code-server: set CODE_SERVER, or provide $installer"
    exit 2
  fi
  say "code-server: $installer (about 5 minutes the first time)"
  code_server=$("$installer")
fi

cd "$ext"
if [[ ! -d node_modules/vscode-languageclient || ! -d node_modules/playwright-core ]]; then
  say "npm ci"
  npm ci --no-audit --no-fund >/dev/null
fi

work=$(mktemp -d)
artifacts=${E2E_ARTIFACTS:-$work/artifacts}
mkdir -p "$artifacts" "$work/user/User" "$work/extensions" "$work/folder"
server_pid=
cleanup() {
  if [[ -n $server_pid ]]; then
    # code-server runs in a session of its own: end it with its extension host and cint-ls.
    kill -- "-$server_pid" 2>/dev/null || kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  rm -rf "$work/user" "$work/extensions"
}
trap cleanup EXIT

say "build and package"
npm run --silent build
npx vsce package --out "$work/cint.vsix" </dev/null >"$artifacts/vsce.log" 2>&1 || {
  cat "$artifacts/vsce.log" >&2
  exit 1
}

cp "$repo/tests/conformance/same_c5010.ci" "$repo/tests/conformance/heat_e1.ci" "$work/folder/"
cat >"$work/user/User/settings.json" <<EOF
{
  "cint.server.path": "$cint_ls",
  "cint.trace.server": "messages",
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "editor.hover.delay": 200,
  "editor.minimap.enabled": false,
  "chat.disableAIFeatures": true,
  "window.commandCenter": false
}
EOF

say "install the .vsix into code-server"
"$code_server" --user-data-dir "$work/user" --extensions-dir "$work/extensions" \
  --install-extension "$work/cint.vsix" --force >"$artifacts/install.log" 2>&1 || {
  cat "$artifacts/install.log" >&2
  exit 1
}

port=$(node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
say "start code-server on 127.0.0.1:$port"
setsid "$code_server" --config "$work/config.yaml" --auth none --bind-addr "127.0.0.1:$port" \
  --disable-telemetry --disable-update-check --disable-workspace-trust \
  --user-data-dir "$work/user" --extensions-dir "$work/extensions" \
  "$work/folder" >"$artifacts/code-server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 120); do
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

say "drive it with $chromium"
status=0
CHROMIUM=$chromium E2E_URL="http://127.0.0.1:$port/?folder=$work/folder" E2E_ARTIFACTS=$artifacts \
  node "$ext/test/e2e/e2e.js" || status=$?
# The extension host's log, for a failure's diagnosis.
find "$work/user" -name '*.log' -path '*exthost*' -exec cp {} "$artifacts/" \; 2>/dev/null || true
find "$work/user" -name '*cint*.log' -exec cp {} "$artifacts/" \; 2>/dev/null || true
say "artifacts (screenshots, logs): $artifacts"
exit $status
