#!/usr/bin/env bash
# End to end in a real VS Code: installs code-server 4.99.4 (the last line that runs on Node 20)
# and playwright-core, installs the packaged .vsix (with the real `opal` bundled), opens the
# examples in headless Chromium and runs e2e.js. Screenshots go to SHOTS.
# usage: e2e/run.sh VSIX SHOTS   (needs apt: chromium ripgrep build-essential pkg-config
#        libkrb5-dev libsecret-1-dev libx11-dev libxkbfile-dev; .ci/run installs them)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
vsix="$(realpath "$1")"
shots="$(mkdir -p "$2" && realpath "$2")"
rm -f "$shots/vscode-fail.png"   # only this run's failure, if any
work="${OPAL_E2E_DIR:-/tmp/opal-vscode-e2e}"
cs_dir="$work/code-server-4.99.4"
port="${OPAL_E2E_PORT:-8765}"
mkdir -p "$work"

if [ ! -x "$cs_dir/node_modules/.bin/code-server" ]; then
  # @vscode/ripgrep (pinned by code-server) downloads rg from GitHub in postinstall: pre-seed its
  # download cache with Debian's rg so the install needs only the npm registry.
  mkdir -p /tmp/vscode-ripgrep-cache-1.15.11
  tar czf /tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz -C /usr/bin rg
  mkdir -p "$cs_dir"
  (cd "$cs_dir" && { [ -f package.json ] || npm init -y >/dev/null; } \
    && npm_config_unsafe_perm=true npm_config_yes=true npm install --no-audit --no-fund --silent code-server@4.99.4)
fi
if [ ! -d "$work/driver/node_modules/playwright-core" ]; then
  mkdir -p "$work/driver"
  (cd "$work/driver" && { [ -f package.json ] || npm init -y >/dev/null; } && npm install --no-audit --no-fund --silent playwright-core@1.65.1)
fi
cs="$cs_dir/node_modules/.bin/code-server"

# A fresh workspace, user profile and extensions folder every run.
rm -rf "$work/ws" "$work/data" "$work/ext"
mkdir -p "$work/ws" "$work/data/User"
cp "$repo/examples/city_excursions.opal" "$repo/examples/city_excursions.world.toml" "$work/ws/"
printf '# A typo: `citys` is bound, `cities` is not.\nextern get_cities_in\ncitys := get_cities_in "Oceania"\nprint (&stdout, cities)\n' > "$work/ws/typo.opal"
# Never opened in the editor, so only the `check` task and the $opal problem matcher report it.
printf 'print (&stdout, zebra)\n' > "$work/ws/unopened.opal"
printf 'bind-addr: 127.0.0.1:%s\nauth: none\ncert: false\n' "$port" > "$work/config.yaml"
cat > "$work/data/User/settings.json" <<'JSON'
{ "workbench.startupEditor": "none", "security.workspace.trust.enabled": false,
  "telemetry.telemetryLevel": "off", "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false, "update.mode": "none", "workbench.tips.enabled": false,
  "terminal.integrated.gpuAcceleration": "off", "opal.trace.server": "off" }
JSON
args=(--config "$work/config.yaml" --user-data-dir "$work/data" --extensions-dir "$work/ext")
"$cs" "${args[@]}" --install-extension "$vsix" --force
"$cs" "${args[@]}" --list-extensions --show-versions

# `opal` must come from the extension: keep any other one off PATH.
PATH="$(tr ':' '\n' <<<"$PATH" | while read -r d; do [ -x "$d/opal" ] || printf '%s:' "$d"; done)"
export PATH="${PATH%:}"
# A code-server left from an earlier run would answer instead of this one.
if curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; then
  echo "e2e: port $port is already served (a code-server from an earlier run?); stop it or set OPAL_E2E_PORT"
  exit 1
fi
# Job control puts code-server in its own process group (pgid = its pid) whatever the caller's
# shell does (setsid would fork when the caller already made this a group leader), so the trap
# ends code-server, its extension host and the servers it started, and nothing else.
set -m
"$cs" "${args[@]}" --disable-telemetry --disable-update-check --disable-workspace-trust "$work/ws" >"$work/code-server.log" 2>&1 &
cspid=$!
set +m
trap 'kill -- -$cspid 2>/dev/null || true' EXIT
for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 1; done
status=0
NODE_PATH="$work/driver/node_modules" node "$here/e2e.js" "http://127.0.0.1:$port" "$work/ws" "$shots" "$work/chrome-profile" "$work/data" || status=$?
# After "Restart Language Server" exactly one server runs: the old one has exited.
servers=$(pgrep -f "$work/ext/.*/server/opal lsp" | wc -l || true)
echo "bundled opal lsp processes running after the restart: $servers"
[ "$servers" -eq 1 ] || { echo "FAIL expected exactly one language server process"; status=1; }
[ "$status" -eq 0 ] || { echo "--- code-server log (tail)"; tail -20 "$work/code-server.log"; }
exit "$status"
