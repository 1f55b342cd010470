#!/bin/sh
# Copies the repository's OPAL programs into test/programs/ for the grammar test, which reads
# only files inside the extension (so `npm test` works on the extension folder alone). Run it
# from vscode-extension/ after adding or changing examples; commit the copies.
# `--check`: fail if the copies differ from the repository's programs (ci.sh runs this).
set -eu
cd "$(dirname "$0")/.."
if [ "${1:-}" = --check ]; then
  tmp=$(mktemp -d)
  cp -r test/programs "$tmp/before"
  sh test/sync-programs.sh >/dev/null
  if ! diff -r "$tmp/before" test/programs >/dev/null; then
    echo "test/programs was stale (now refreshed from the repository): commit the new copies"
    rm -rf "$tmp"
    exit 1
  fi
  rm -rf "$tmp"
  echo "test/programs: current"
  exit 0
fi
rm -rf test/programs && mkdir -p test/programs
for d in examples tests/runs tests/lsp; do
  for f in ../$d/*.opal; do
    case "$f" in *broken.opal) continue ;; esac
    cp "$f" "test/programs/$(echo "$d" | tr / _)__$(basename "$f")"
  done
done
cp ../core/src/prelude.opal test/programs/core__prelude.opal
cp ../examples/city_excursions.world.toml test/programs/city_excursions.world.toml
echo "test/programs: $(ls test/programs | wc -l) files"
