#!/usr/bin/env bash
# The project's editor support (editors/) and real editor clients against the real `opal lsp`
# and `opal dap` (issues 4, 19, 31, 33). Each editor gets only its editors/ folder on its path,
# as docs/editors.md tells users, and `opal` on PATH:
# * Neovim 0.7 with editors/nvim on the runtimepath: `.opal` is filetype opal, highlighted, the
#   plugin's client attaches by itself (diagnostics, hover, definition), the indentation
#   fixture re-indents to itself and a typed block indents;
# * the vscode-languageserver-protocol Node client: 300 back-to-back incremental edits must
#   arrive in order;
# * Emacs 28 with editors/emacs and `(require 'opal-mode)`: the mode (faces, indentation), then
#   eglot 1.9 and lsp-mode 8 finding the server by themselves, each checking diagnostics, hover,
#   definition, completion, rename and formatting, then shutting the server down (lsp-mode's
#   `shutdown` has `params: {}`); the server must exit 0 (eglot 1.9 kills the process once
#   `shutdown` is answered: 9 is eglot's doing, 1 would be the server's); then dap-mode 0.7
#   debugging CityExcursions with the template opal-mode registers;
# * Vim 9 with editors/vim and ALE 3.3: filetype, syntax, the ALE linter from editors/vim, the
#   same LSP checks (ALE asks for hover in plain text), indentation;
# * Helix is not packaged for Debian 12: its languages.toml is checked against Helix's schema;
# * the DebugClient of @vscode/debugadapter-testsupport against `opal dap`.
# Installs what it needs (Debian packages, npm). OPAL_BIN=/path/to/opal uses that binary instead
# of building one (CI builds).
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ -n "${OPAL_BIN:-}" ]; then
  opal=$(realpath "$OPAL_BIN")
else
  cargo build --release -q -p opal-cli
  opal="${CARGO_TARGET_DIR:-$PWD/target}/release/opal"
fi
file="$PWD/tests/lsp/tour.opal"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The editor files start `opal` from PATH, as they find an installed one.
mkdir "$tmp/bin" && ln -s "$opal" "$tmp/bin/opal"
export PATH="$tmp/bin:$PATH"

# Files that need no editor: Neovim's plugin carries the same Vim runtime files as editors/vim
# (a plugin directory must hold them itself); the syntax files colour the TextMate grammar's
# words; Helix's languages.toml; the indentation fixture is a valid program.
for f in ftdetect/opal.vim ftplugin/opal.vim indent/opal.vim syntax/opal.vim; do
  cmp -s "editors/vim/$f" "editors/nvim/$f" || { echo "editors/nvim/$f differs from editors/vim/$f"; exit 1; }
done
python3 tests/editor/words_check.py
python3 tests/editor/helix_check.py editors/helix/languages.toml
opal check tests/editor/indent.opal 2>/dev/null || { echo "tests/editor/indent.opal is not a valid program"; exit 1; }
echo "editor files: ok"

if ! command -v nvim >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq neovim >/dev/null
fi
# The whole Neovim set-up: the plugin directory on the runtimepath (plugin files do not load
# with `-u NONE`).
printf 'set runtimepath^=%s\n' "$PWD/editors/nvim" > "$tmp/init.vim"
out=$(LSP_LINE=9 LSP_COL=21 INDENT_DIR="$PWD/tests/editor" \
  timeout 60 nvim --headless -u "$tmp/init.vim" -i NONE "$file" -c 'luafile tests/editor/nvim_probe.lua' 2>&1) || { echo "$out"; echo "neovim e2e: FAILED"; exit 1; }
echo "$out"
# The fixture has one warning (W0001 on `lengths`); hover and definition are about `shout`.
grep -q '^filetype: opal$' <<<"$out" && grep -q '^syntax keyword: opalRepeat Statement$' <<<"$out" \
  && grep -q '^syntax comment: opalComment Comment$' <<<"$out" && grep -q '^syntax string: opalString Constant$' <<<"$out" \
  && grep -q '^client: opal (opal lsp)' <<<"$out" \
  && grep -q '^diagnostics: 1$' <<<"$out" && grep -q 'W0001\|never used' <<<"$out" \
  && grep -q '^hover: .*shout' <<<"$out" && grep -q '^definition: tour.opal 4:0$' <<<"$out" \
  && grep -q '^lenses: 1, ▶ Run opal.server.run$' <<<"$out" && grep -q '^lens ran: opal run tour.opal: finished' <<<"$out" \
  && grep -q '^stopped: true$' <<<"$out" && grep -q '^indent fixture: as expected$' <<<"$out" \
  && grep -q '^indent typed: as expected$' <<<"$out" && grep -q '^options: 4 true # %s$' <<<"$out" \
  || { echo "neovim e2e: unexpected answers"; exit 1; }
echo "neovim e2e: ok"

# The same program (and its world file) with its last line unformatted, for the clients that
# format it: one edit.
sed 's/^print (&stdout, count)$/print (\&stdout,count)/' "$file" > "$tmp/tour.opal"
cp tests/lsp/tour.world.toml "$tmp/"
grep -q '^print (&stdout,count)$' "$tmp/tour.opal" || { echo "editor e2e: could not make the unformatted copy"; exit 1; }
cp tests/editor/probe.js "$tmp/"
(cd "$tmp" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund vscode-languageserver-protocol@3.18.5 >/dev/null)
ORDER_TEST=300 timeout 60 node "$tmp/probe.js" "$file" 9 21 -- "$opal" lsp --stdio
echo "node client e2e (300 ordered edits): ok"

if ! command -v emacs >/dev/null || ! command -v vim >/dev/null || [ ! -d /usr/share/vim-ale ] \
  || [ ! -d /usr/share/emacs/site-lisp/elpa-src/dap-mode-0.7 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq emacs-nox elpa-eglot elpa-lsp-mode elpa-dap-mode vim-ale vim-nox >/dev/null
fi
# `-q`, not `-Q`: Debian's site start-up puts its elpa packages on the load path.
emacs_dir="$PWD/editors/emacs"
out=$(timeout 60 emacs --batch -q -l tests/editor/opal_mode_probe.el "$emacs_dir" "$tmp/tour.opal" "$PWD/tests/editor" 2>&1) || { echo "$out"; echo "opal-mode e2e: FAILED"; exit 1; }
echo "$out" | grep -v '^Loading'
grep -q '^mode: opal-mode$' <<<"$out" && grep -q '^face keyword: font-lock-keyword-face$' <<<"$out" \
  && grep -q '^face comment: font-lock-comment-delimiter-face$' <<<"$out" && grep -q '^face string: font-lock-string-face$' <<<"$out" \
  && grep -q '^face function: font-lock-function-name-face$' <<<"$out" && grep -q '^face builtin: font-lock-builtin-face$' <<<"$out" \
  && grep -q '^face number: opal-number-face$' <<<"$out" \
  && grep -q '^face escape: (opal-escape-face font-lock-string-face), in a comment: font-lock-comment-face$' <<<"$out" \
  && grep -q '^indent fixture: as expected$' <<<"$out" && grep -q '^indent typed: as expected$' <<<"$out" \
  && grep -q '^tab cycle: (8 4 0 8)$' <<<"$out" && grep -q '^comment-start: "# ", indent-tabs-mode: nil$' <<<"$out" \
  || { echo "opal-mode e2e: unexpected answers"; exit 1; }
echo "opal-mode e2e: ok"

out=$(timeout 60 emacs --batch -q -l tests/editor/eglot_probe.el "$emacs_dir" "$tmp/tour.opal" 9 21 2>&1) || { echo "$out"; echo "eglot e2e: FAILED"; exit 1; }
echo "$out" | grep -v '^Loading'
grep -q '^mode: opal-mode$' <<<"$out" && grep -q '^server: opal lsp for (opal-mode)$' <<<"$out" \
  && grep -q '^diagnostics: 1$' <<<"$out" && grep -q '^hover kind: markdown$' <<<"$out" && grep -q '^hover: .*shout' <<<"$out" \
  && grep -q '^definition: tour.opal 4:0$' <<<"$out" && grep -q '^completion: [1-9][0-9]* items, snippets: nil$' <<<"$out" \
  && grep -q '^rename: 2 edit(s)$' <<<"$out" && grep -q '^formatting: 1 edit(s)$' <<<"$out" && grep -q '^shutdown: answered$' <<<"$out" \
  && grep -q '^exit status: [09]$' <<<"$out" \
  || { echo "eglot e2e: unexpected answers"; exit 1; }
echo "eglot e2e: ok"

out=$(timeout 60 emacs --batch -q -l tests/editor/lsp_mode_probe.el "$emacs_dir" "$tmp/tour.opal" 9 21 2>&1) || { echo "$out"; echo "lsp-mode e2e: FAILED"; exit 1; }
echo "$out" | grep -v '^Loading'
grep -q '^mode: opal-mode$' <<<"$out" && grep -q '^clients: (opal-lsp)$' <<<"$out" \
  && grep -q '^diagnostics: 1$' <<<"$out" && grep -q '^hover kind: markdown$' <<<"$out" && grep -q '^hover: .*shout' <<<"$out" \
  && grep -q '^definition: tour.opal 4$' <<<"$out" && grep -q '^completion: [1-9][0-9]* items$' <<<"$out" && grep -q '^rename: 2 edit(s)$' <<<"$out" \
  && grep -q '^formatting: 1 edit(s)$' <<<"$out" && grep -q '^shutdown: nil$' <<<"$out" && grep -q '^exit status: 0$' <<<"$out" \
  || { echo "lsp-mode e2e: unexpected answers"; exit 1; }
echo "lsp-mode e2e: ok"

# dap-mode: line 8 of CityExcursions stops once per city, in the order the world file streams
# them (Honolulu, Jakarta, ...); its world file sits beside it.
out=$(timeout 90 emacs --batch -q -l tests/editor/dap_mode_probe.el "$emacs_dir" "$PWD/examples/city_excursions.opal" 2>&1) || { echo "$out"; echo "dap-mode e2e: FAILED"; exit 1; }
echo "$out" | grep -v '^Loading'
grep -q '^dap-ui loaded: nil$' <<<"$out" && grep -q '^mode: opal-mode$' <<<"$out" && grep -q '^breakpoint set: line 8$' <<<"$out" \
  && grep -q '^template offered: t$' <<<"$out" && grep -q '^breakpoint verified: t$' <<<"$out" \
  && grep -q '^stopped: line 8, excursions := get_excursions_in city$' <<<"$out" && grep -q '^city: "Honolulu"$' <<<"$out" \
  && grep -q '^stopped again: line 8$' <<<"$out" && grep -q '^city: "Jakarta"$' <<<"$out" \
  && grep -q '^disconnected: terminated t, adapter exit status [09]$' <<<"$out" \
  || { echo "dap-mode e2e: unexpected answers"; exit 1; }
echo "dap-mode e2e: ok"

# The whole Vim set-up: editors/vim on the runtimepath, Debian's ALE package, filetype plugins,
# indentation and syntax on. Vim exits 1 if any of it (or the probe) raised an error.
printf 'set runtimepath^=%s\npackadd ale\nfiletype plugin indent on\nsyntax on\n' "$PWD/editors/vim" > "$tmp/vimrc"
LSP_FILE="$tmp/tour.opal" LSP_LINE=9 LSP_COL=21 OUT="$tmp/ale.out" INDENT_DIR="$PWD/tests/editor" \
  timeout 60 vim -N -u "$tmp/vimrc" -i NONE -es -S tests/editor/ale_probe.vim || { rc=$?; cat "$tmp/ale.out"; echo "ALE e2e: FAILED (vim exited $rc)"; exit 1; }
cat "$tmp/ale.out"
grep -q '^filetype: opal$' "$tmp/ale.out" && grep -q '^syntax keyword: opalRepeat Statement$' "$tmp/ale.out" \
  && grep -q '^syntax comment: opalComment Comment$' "$tmp/ale.out" && grep -q '^syntax string: opalString Constant$' "$tmp/ale.out" \
  && grep -q '^syntax number: opalNumber Constant$' "$tmp/ale.out" && grep -q '^syntax function: opalFunction Identifier$' "$tmp/ale.out" \
  && grep -q '^ale linters: opal %e lsp$' "$tmp/ale.out" \
  && grep -q '^diagnostics: 1$' "$tmp/ale.out" && grep -q '^hover kind: plaintext$' "$tmp/ale.out" && ! grep -q '\*\*' "$tmp/ale.out" \
  && grep -q '^definition: tour.opal 4$' "$tmp/ale.out" && grep -q '^completion: [1-9][0-9]* items$' "$tmp/ale.out" \
  && grep -q '^rename: 2 edit(s)$' "$tmp/ale.out" && grep -q '^formatting: 1 edit(s)$' "$tmp/ale.out" \
  && grep -q '^shutdown: answered$' "$tmp/ale.out" && grep -q '^exit status: 0$' "$tmp/ale.out" \
  && grep -q '^indent fixture: as expected$' "$tmp/ale.out" && grep -q '^indent typed: as expected$' "$tmp/ale.out" \
  && grep -q '^options: 4 1 # %s$' "$tmp/ale.out" && grep -q '^done$' "$tmp/ale.out" || { echo "ALE e2e: unexpected answers"; exit 1; }
echo "ALE e2e: ok"

# A second DAP client (Debian's Neovim 0.7 is too old for nvim-dap): the DebugClient of
# @vscode/debugadapter-testsupport drives `opal dap` through a breakpoint in CityExcursions.
(cd "$tmp" && npm install --silent --no-audit --no-fund @vscode/debugadapter-testsupport@1.68.0 >/dev/null)
cp tests/editor/dap_client.js "$tmp/"
timeout 120 node "$tmp/dap_client.js" "$opal" "$PWD/examples/city_excursions.opal"
echo "node DAP client e2e: ok"
