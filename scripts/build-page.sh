#!/usr/bin/env bash
# Builds the page's wasm in chunks: what the first paint needs, and the code
# marked as split points (src/page/chunks.rs), which the page fetches once it
# is up. Trunk runs this as a pre_build hook (Trunk.toml) and writes the files
# into its staging directory; it builds the worker itself.
#
# Trunk cannot split a module: wasm-split works on the linker's output with its
# relocations, before wasm-bindgen. So: cargo (`--emit-relocs`), wasm-split,
# wasm-bindgen on the main module, wasm-opt on every module (release).
#
#   TRUNK_STAGING_DIR=DIR TRUNK_PROFILE=release|debug scripts/build-page.sh
set -euo pipefail
cd "$(dirname "$0")/.."
out=${TRUNK_STAGING_DIR:?run by trunk (Trunk.toml), or set TRUNK_STAGING_DIR}
target_dir=$(cargo metadata --format-version 1 --no-deps | node -e 'process.stdout.write(JSON.parse(require("fs").readFileSync(0)).target_directory)')

if [ "${TRUNK_PROFILE:-debug}" = release ]; then
  # Downloaded by everyone who opens the page, and it runs no analysis: all for size.
  profile=wasm-page dir=wasm-page
else
  profile=dev dir=debug
fi
# Only the final link changes (`cargo rustc`): the dependencies stay the ones
# every other build shares. `chunks`: the split points (src/page/chunks.rs).
cargo rustc --quiet --profile "$profile" --target wasm32-unknown-unknown --bin d9lens-web --features chunks \
  -- -C link-arg=--emit-relocs

split="$target_dir/page-split"
rm -rf "$split"
mkdir -p "$split"
wasm-split-cli --out-name d9lens-web "$target_dir/wasm32-unknown-unknown/$dir/d9lens-web.wasm" "$split"

# The split's loader imports the page's glue for the main module's exports,
# and the glue imports the loader: a cycle no content hash can name
# (scripts/hash-assets.mjs). boot.js hands the exports over instead. The loader
# lists the shared exports in a hash set's order: sorted, so that the same code
# gives the same file (and the same content hash).
node - "$split/__wasm_split.js" <<'EOF'
const fs = require('fs');
const file = process.argv[2];
const from = 'import { initSync } from "./d9lens-web.js";';
const text = fs.readFileSync(file, 'utf8');
if (text.split(from).length !== 2) throw new Error(`${file}: expected one line ${from}`);
const handedOver = text.replace(from, [
  '// The main module\'s exports, handed over by boot.js once it has started.',
  'let mainExports;',
  'export function setMainExports(exports) { mainExports = exports; }',
  'const initSync = () => mainExports;',
].join('\n'));
const sorted = handedOver.replace(/\{ ((?:\w+, )+) \}/g, (_, names) => `{ ${names.split(', ').filter(Boolean).sort().join(', ')}, }`);
fs.writeFileSync(file, sorted);
EOF

wasm-bindgen --target web --no-typescript --keep-lld-exports --out-name d9lens-web --out-dir "$out" "$split/d9lens-web.wasm"
cp "$split/__wasm_split.js" "$out/"
modules=("$out/d9lens-web_bg.wasm")
for wasm in "$split"/*.wasm; do
  [ "$(basename "$wasm")" = d9lens-web.wasm ] && continue
  cp "$wasm" "$out/"
  modules+=("$out/$(basename "$wasm")")
done

if [ "${TRUNK_PROFILE:-debug}" = release ]; then
  for wasm in "${modules[@]}"; do
    # (wasm-opt does not know the name section's newer subsections: a warning.)
    wasm-opt -Oz "$wasm" -o "$wasm.opt" 2> >(grep -v 'unknown name subsection' >&2)
    mv "$wasm.opt" "$wasm"
  done
fi
