#!/usr/bin/env bash
# Builds the page as one self-contained HTML file (default: target/d9lens.html):
# the release build in its own dist folder, then scripts/single-file.mjs inlines it.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="$HOME/.cargo/bin:$root/node_modules/.bin:$PATH"
out=${1:-target/d9lens.html}
dist=${D9LENS_DIST:-target/dist-single}
if [ -z "${NO_BUILD:-}" ]; then
  trunk build --release --dist "$dist"
fi
mkdir -p "$(dirname "$out")"
node scripts/single-file.mjs "$dist" "$out"
