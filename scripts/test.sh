#!/usr/bin/env bash
# Sets up what is missing, then runs every test of d9lens: formatting and
# lints, native core/CLI tests (parity with dial9's analyze.js, S3 signing and
# listing, layouts, robustness), wasm tests in headless Chromium, the release
# build of the page, end-to-end browser tests against real servers, and a
# bounded fuzzing run.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="$HOME/.cargo/bin:$root/node_modules/.bin:$PATH"
export CARGO_TERM_COLOR=${CARGO_TERM_COLOR:-never}
# A one-shot run gains nothing from incremental caches, which double the disk a
# clean build takes.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}

# A clean run builds about 6 GB; say so up front rather than fail half an hour in.
free_kb=$(df -Pk . | awk 'NR==2 {print $4}')
if [ "$free_kb" -lt $((10 * 1024 * 1024)) ]; then
  printf 'warning: only %s GB free here; a clean run of every test needs about 7 GB\n' \
    "$((free_kb / 1024 / 1024))" >&2
fi

scripts/setup.sh

step() { printf '\n\033[1m== %s ==\033[0m\n' "$*"; }

step "format and lints"
cargo fmt --all --check
cargo clippy -p d9lens-core -p d9lens-http -p d9lens-cli -p d9lens-lambda -p d9lens-s3-server --all-targets -- -D warnings
cargo clippy -p d9lens-web --target wasm32-unknown-unknown --all-targets -- -D warnings
# The page's own build: its split points (scripts/build-page.sh).
cargo clippy -p d9lens-web --target wasm32-unknown-unknown --bin d9lens-web --features chunks -- -D warnings
# One-way imports: no cycle among the core's modules or the page's (and the check's own tests).
node scripts/module-cycles.mjs crates/core/src src
node --test tests/tooling/

step "native tests (core, CLI, the S3 test server; the Lambda function in its emulator)"
cargo build -p d9lens-lambda
cargo test -p d9lens-core -p d9lens-http -p d9lens-cli -p d9lens-s3-server

step "wasm tests in headless Chromium"
CHROMEDRIVER=/usr/bin/chromedriver cargo test -p d9lens-web --target wasm32-unknown-unknown

step "release build of the page"
trunk build --release
scripts/dist-local.sh

step "end-to-end tests in headless Chromium"
D9LENS_DIST=target/dist-local node --test tests/e2e/

if [ -x scripts/fuzz.sh ]; then
  step "bounded fuzzing"
  scripts/fuzz.sh "${FUZZ_SECONDS:-60}"
  scripts/fuzz.sh "${FUZZ_ANSWERS_SECONDS:-30}" answers
  scripts/fuzz.sh "${FUZZ_BUCKET_SECONDS:-30}" bucket
  scripts/fuzz.sh "${FUZZ_LINKS_SECONDS:-20}" links
  scripts/fuzz.sh "${FUZZ_MERGE_SECONDS:-30}" merge
  scripts/fuzz.sh "${FUZZ_INSPECT_SECONDS:-25}" inspect
fi

step "all tests passed"
