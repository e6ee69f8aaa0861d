#!/usr/bin/env bash
# Sets up what is missing, builds the page in release mode, starts the local
# demo S3 bucket (a real signature-checking S3 server seeded with the fixture
# bucket) and serves d9lens on http://127.0.0.1:${PORT:-8080}/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
export PATH="$HOME/.cargo/bin:$root/node_modules/.bin:$PATH"

scripts/setup.sh
trunk build --release
scripts/dist-local.sh

# The demo bucket: s3s-fs (checks SigV4) on :9000, behind a CORS front on :9001.
node tests/s3/servers.mjs start
trap 'node tests/s3/servers.mjs stop' EXIT

node scripts/serve.mjs target/dist-local "${PORT:-8080}"
