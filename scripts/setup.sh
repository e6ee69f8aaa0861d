#!/usr/bin/env bash
# Installs what building and testing d9lens needs, skipping whatever is already
# present at the right version. Safe to run repeatedly.
set -euo pipefail

TRUNK_VERSION=0.21.14
WASM_BINDGEN_VERSION=0.2.130
BINARYEN_VERSION=132.0.0
CARGO_LAMBDA_VERSION=1.9.2
WASM_SPLIT_VERSION=0.2.3

here=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$HOME/.cargo/bin:$here/node_modules/.bin:$PATH"

log() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# Quicker tool builds with the same result (see toolchain notes in ARCHITECTURE.md).
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding rust target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q " $WASM_BINDGEN_VERSION\$"; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 10 minutes)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if ! trunk --version 2>/dev/null | grep -q " $TRUNK_VERSION\$"; then
  log "installing trunk $TRUNK_VERSION (about 15 minutes)"
  cargo install --locked trunk --version "$TRUNK_VERSION" --force
fi

# Splits the page's wasm into chunks (scripts/build-page.sh); no prebuilt
# binary is published, and it builds in about a minute.
# (It prints no version: cargo's list of installed crates tells.)
if ! cargo install --list | grep -q "^wasm_split_cli_support v$WASM_SPLIT_VERSION:"; then
  log "installing wasm-split-cli $WASM_SPLIT_VERSION (about a minute)"
  cargo install --locked wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary --force
fi

# The S3-compatible server of the S3 tests and the demo bucket (tests/s3/server: the
# s3s-fs 0.14.1 libraries, which verify SigV4, plus public-read prefixes), built in the
# shared target dir where tests/s3/servers.mjs looks for it. Always run: up to date, it
# takes a second; from scratch about 6 minutes (2 cores).
log "building the S3 test server (cargo build -p d9lens-s3-server)"
(cd "$here" && cargo build -q -p d9lens-s3-server)

# cargo-lambda's emulator of the Lambda APIs, for the Lambda function's test: the
# prebuilt PyPI wheel installs in seconds (building it takes many minutes).
if ! cargo lambda --version 2>/dev/null | grep -q " $CARGO_LAMBDA_VERSION "; then
  log "installing cargo-lambda $CARGO_LAMBDA_VERSION (PyPI wheel)"
  python3 -m pip install -q "cargo-lambda==$CARGO_LAMBDA_VERSION"
fi

if ! { command -v chromium && command -v chromedriver; } >/dev/null 2>&1; then
  log "installing chromium and chromedriver from Debian"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi

# wasm-opt from npm binaryen (Debian's v108 miscompiles for Chromium) and the
# e2e driver, both pinned in package-lock.json.
if [ ! -x "$here/node_modules/.bin/wasm-opt" ] || [ ! -d "$here/node_modules/playwright-core" ]; then
  log "installing npm dev tools (binaryen $BINARYEN_VERSION, playwright-core)"
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error)
fi
