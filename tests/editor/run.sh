#!/usr/bin/env bash
# Real editor clients against the real `opal lsp` (issues 4 and 19): headless Neovim's built-in
# LSP client (diagnostics, hover, definition), the vscode-languageserver-protocol Node client
# (300 back-to-back incremental edits must arrive in order), Emacs 28 with eglot 1.9 and with
# lsp-mode 8, and Vim 9 with ALE 3.3: each of these three opens a program and checks
# diagnostics, hover, definition, completion, rename and formatting, then shuts the server down
# (lsp-mode's `shutdown` has `params: {}`; ALE asks for hover in plain text); the server must
# exit 0 (eglot 1.9 kills the process once `shutdown` is answered: 9 is eglot's doing, 1 would
# be the server's). Installs what it needs (Debian packages).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build --release -q -p opal-cli
opal="${CARGO_TARGET_DIR:-$PWD/target}/release/opal"
file="$PWD/tests/lsp/tour.opal"

if ! command -v nvim >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null
fi
out=$(LSP_CMD="$opal lsp" LSP_FILE="$file" LSP_FT=opal LSP_LINE=9 LSP_COL=21 \
  timeout 60 nvim --headless --clean -u NONE -c 'luafile tests/editor/nvim_probe.lua' 2>&1) || { echo "$out"; echo "neovim e2e: FAILED"; exit 1; }
echo "$out"
# The fixture has one warning (W0001 on `lengths`); hover and definition are about `shout`.
grep -q '^diagnostics: 1$' <<<"$out" && grep -q 'W0001\|never used' <<<"$out" \
  && grep -q '^hover: .*shout' <<<"$out" && grep -q '^definition: tour.opal 4:0$' <<<"$out" \
  && grep -q '^stopped: true$' <<<"$out" || { echo "neovim e2e: unexpected answers"; exit 1; }
echo "neovim e2e: ok"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The same program (and its world file) with its last line unformatted, for the clients that
# format it: one edit.
sed 's/^print (&stdout, count)$/print (\&stdout,count)/' "$file" > "$tmp/tour.opal"
cp tests/lsp/tour.world.toml "$tmp/"
grep -q '^print (&stdout,count)$' "$tmp/tour.opal" || { echo "editor e2e: could not make the unformatted copy"; exit 1; }
cp tests/editor/probe.js "$tmp/"
(cd "$tmp" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund vscode-languageserver-protocol@3.18.5 >/dev/null)
ORDER_TEST=300 timeout 60 node "$tmp/probe.js" "$file" 9 21 -- "$opal" lsp --stdio
echo "node client e2e (300 ordered edits): ok"

if ! command -v emacs >/dev/null || ! command -v vim >/dev/null || [ ! -d /usr/share/vim-ale ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq emacs-nox elpa-eglot elpa-lsp-mode vim-ale vim-nox >/dev/null
fi
out=$(timeout 60 emacs --batch -l tests/editor/eglot_probe.el "$opal" "$tmp/tour.opal" 9 21 2>&1) || { echo "$out"; echo "eglot e2e: FAILED"; exit 1; }
echo "$out" | grep -v '^Loading'
grep -q '^diagnostics: 1$' <<<"$out" && grep -q '^hover kind: markdown$' <<<"$out" && grep -q '^hover: .*shout' <<<"$out" \
  && grep -q '^definition: tour.opal 4:0$' <<<"$out" && grep -q '^completion: [1-9][0-9]* items, snippets: nil$' <<<"$out" \
  && grep -q '^rename: 2 edit(s)$' <<<"$out" && grep -q '^formatting: 1 edit(s)$' <<<"$out" && grep -q '^shutdown: answered$' <<<"$out" \
  && grep -q '^exit status: [09]$' <<<"$out" \
  || { echo "eglot e2e: unexpected answers"; exit 1; }
echo "eglot e2e: ok"

out=$(timeout 60 emacs --batch -l tests/editor/lsp_mode_probe.el "$opal" "$tmp/tour.opal" 9 21 2>&1) || { echo "$out"; echo "lsp-mode e2e: FAILED"; exit 1; }
echo "$out" | grep -v '^Loading'
grep -q '^diagnostics: 1$' <<<"$out" && grep -q '^hover kind: markdown$' <<<"$out" && grep -q '^hover: .*shout' <<<"$out" \
  && grep -q '^definition: tour.opal 4$' <<<"$out" && grep -q '^completion: [1-9][0-9]* items$' <<<"$out" && grep -q '^rename: 2 edit(s)$' <<<"$out" \
  && grep -q '^formatting: 1 edit(s)$' <<<"$out" && grep -q '^shutdown: nil$' <<<"$out" && grep -q '^exit status: 0$' <<<"$out" \
  || { echo "lsp-mode e2e: unexpected answers"; exit 1; }
echo "lsp-mode e2e: ok"

OPAL="$opal" LSP_FILE="$tmp/tour.opal" LSP_LINE=9 LSP_COL=21 OUT="$tmp/ale.out" timeout 60 vim -N -u NONE -i NONE -es -S tests/editor/ale_probe.vim || true
cat "$tmp/ale.out"
grep -q '^diagnostics: 1$' "$tmp/ale.out" && grep -q '^hover kind: plaintext$' "$tmp/ale.out" && ! grep -q '\*\*' "$tmp/ale.out" \
  && grep -q '^definition: tour.opal 4$' "$tmp/ale.out" && grep -q '^completion: [1-9][0-9]* items$' "$tmp/ale.out" \
  && grep -q '^rename: 2 edit(s)$' "$tmp/ale.out" && grep -q '^formatting: 1 edit(s)$' "$tmp/ale.out" \
  && grep -q '^shutdown: answered$' "$tmp/ale.out" && grep -q '^exit status: 0$' "$tmp/ale.out" \
  && grep -q '^done$' "$tmp/ale.out" || { echo "ALE e2e: unexpected answers"; exit 1; }
echo "ALE e2e: ok"

# A second DAP client (Debian's Neovim 0.7 is too old for nvim-dap): the DebugClient of
# @vscode/debugadapter-testsupport drives `opal dap` through a breakpoint in CityExcursions.
(cd "$tmp" && npm install --silent --no-audit --no-fund @vscode/debugadapter-testsupport@1.68.0 >/dev/null)
cp tests/editor/dap_client.js "$tmp/"
timeout 120 node "$tmp/dap_client.js" "$opal" "$PWD/examples/city_excursions.opal"
echo "node DAP client e2e: ok"
