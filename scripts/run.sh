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

if [ -x scripts/s3-servers.sh ]; then
  scripts/s3-servers.sh start
  trap 'scripts/s3-servers.sh stop' EXIT
fi

node scripts/serve.mjs dist "${PORT:-8080}"
