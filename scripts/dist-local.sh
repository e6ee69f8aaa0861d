#!/usr/bin/env bash
# The production build (dist/) lets the page connect only to its own origin and
# to AWS's S3 and STS hosts. The local demo bucket and the test S3 servers run on
# loopback, on any port: target/dist-local is a copy of dist/ whose policy allows
# them too (`d9lens deploy --in-place --allow-loopback`). run.sh and the e2e tests
# serve it; the static-site tests use dist/ itself.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf target/dist-local
mkdir -p target
cp -r dist target/dist-local
cargo run -q -p d9lens-cli -- deploy --in-place --dist target/dist-local --allow-loopback
