#!/usr/bin/env bash
# The VS Code extension's CI (called by .ci/run after the release `opal` is built): npm build and
# tests, a packaged .vsix with the real `opal` bundled, and the end-to-end run in code-server.
set -euo pipefail
cd "$(dirname "$0")"
opal="$(realpath "${CARGO_TARGET_DIR:-../target}")/release/opal"
[ -x "$opal" ] || { echo "vscode-extension/ci.sh: build the release opal first ($opal)"; exit 1; }

need=()
for p in chromium:chromium rg:ripgrep make:build-essential pkg-config:pkg-config; do
  command -v "${p%%:*}" >/dev/null || need+=("${p#*:}")
done
for lib in libkrb5-dev libsecret-1-dev libx11-dev libxkbfile-dev; do
  dpkg -s "$lib" >/dev/null 2>&1 || need+=("$lib")
done
if [ "${#need[@]}" -gt 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi

npm ci --no-audit --no-fund --silent
# The grammar test reads copies of the repository's programs (so it runs on the extension folder
# alone). Here, inside the repository, test the current programs: refresh stale copies and say so
# (commit them), rather than fail on an example changed by another branch.
sh test/sync-programs.sh --check || echo "vscode-extension/ci.sh: WARNING: test/programs refreshed from the repository; commit the new copies"
# OPAL_BIN: the tests that need the real binary (the semantic token legend, `opal check` output
# through the $opal problem matcher) run too.
OPAL_BIN="$opal" npm test
npm run -s build
# The per-platform package: TARGET and BINARY; the binary is checked, stripped and bundled.
node scripts/package.mjs linux-x64 "$opal"
bash e2e/run.sh dist/opal-linux-x64.vsix ../target/ci-screenshots
