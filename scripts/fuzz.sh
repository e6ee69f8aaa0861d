#!/usr/bin/env bash
# Bounded fuzzing: `analyze`, the whole per-file path
# (fuzz/fuzz_targets/analyze.rs), `answers`, what the page reads from
# workers and S3 besides traces (fuzz/fuzz_targets/answers.rs), or `bucket`,
# a walk of listing answers into the catalog (fuzz/fuzz_targets/bucket.rs).
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET]     (defaults: 60 s, analyze)
# Env:   JOBS=N    parallel libFuzzer jobs (default 1; the machines have 2 cores)
#
# Works on the stable toolchain: cargo-fuzz builds with -Zsanitizer=address and
# other -Z flags, which stable rustc accepts under RUSTC_BOOTSTRAP=1 (the ASan
# runtime ships with stable rust-std for x86_64-unknown-linux-gnu).
# Installs cargo-fuzz when it is missing. Seeds the corpus from the smallest
# fixtures on every run (raw segment, its gzip, truncated variants, an S3
# .bin.gz); inputs libFuzzer finds accumulate in fuzz/corpus/TARGET (ignored
# by git). Exits non-zero on any crash, panic, OOM (> 2 GiB RSS) or timeout;
# the reproducer is then in fuzz/artifacts/TARGET/ and can be replayed with
#   RUSTC_BOOTSTRAP=1 cargo fuzz run TARGET fuzz/artifacts/TARGET/crash-…
set -euo pipefail

secs=${1:-60}
target=${2:-analyze}
here=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$HOME/.cargo/bin:$PATH"
log() { printf '\033[1m[fuzz]\033[0m %s\n' "$*" >&2; }

cd "$here"

if ! cargo fuzz --version >/dev/null 2>&1; then
  log "installing cargo-fuzz"
  cargo install cargo-fuzz --locked || cargo install cargo-fuzz
fi

# The toolchain rust-toolchain.toml selects is stable: let it take -Z flags.
if ! rustc --version | grep -q -- '-nightly'; then
  export RUSTC_BOOTSTRAP=1
fi

# Seed corpus (small inputs keep libFuzzer fast): traces from the fixtures,
# or the answers target's seeds (a file's outcome and timeline as bytes, S3 XML).
corpus=$here/fuzz/corpus/$target
max_len=65536
mkdir -p "$corpus" "$here/fuzz/artifacts/$target"
if [ "$target" = analyze ]; then
  fx=tests/fixtures
  seed=$fx/rotation/trace.4.bin
  size=$(stat -c %s "$seed")
  cp "$seed" "$corpus/seed-trace4.bin"
  gzip -9nc "$seed" >"$corpus/seed-trace4.bin.gz"
  for frac in 1 2 3; do
    head -c $((size * frac / 4)) "$seed" >"$corpus/seed-trace4-cut$frac.bin"
  done
  head -c 512 "$seed" >"$corpus/seed-trace4-head.bin"
  gzip -9nc "$seed" | head -c 4000 >"$corpus/seed-trace4-cut.bin.gz"
  # The head of a segment dial9's uploader wrote (its metadata and first
  # events), raw and gzipped: small, like every seed here.
  s3=$(find "$fx/s3-bucket" -name '*.bin.gz' -size -64k | sort | head -n1)
  if [ -n "$s3" ]; then
    head -c 12000 < <(gzip -dc "$s3") >"$corpus/seed-s3-head.bin"
    gzip -9nc "$corpus/seed-s3-head.bin" >"$corpus/seed-s3-head.bin.gz"
  fi
  # Inputs stay small: a trace's cost grows with its length, and at 16 KiB
  # the target still runs over a thousand inputs a second.
  max_len=16384
else
  cp "$here/fuzz/seeds/$target/"* "$corpus/"
fi
dict=()
[ -f "$here/fuzz/$target.dict" ] && dict=(-dict="$here/fuzz/$target.dict")

log "building fuzz target $target (cargo fuzz, $(rustc --version))"
cargo fuzz build "$target"

# -jobs forks workers that log to fuzz-N.log; only when asked for.
parallel=()
if [ "${JOBS:-1}" -gt 1 ]; then
  parallel=(-jobs="$JOBS" -workers="$JOBS")
fi

log "fuzzing $target for ${secs}s"
# -max_len: room for the seeds and their gzip (see above); -timeout: one input may not take
# a minute (a hang is a bug); -rss_limit_mb: the target caps inflation at 64 MiB.
cargo fuzz run "$target" "$corpus" -- \
  -max_total_time="$secs" \
  -rss_limit_mb=2048 \
  -timeout=60 \
  -max_len="$max_len" \
  "${dict[@]}" \
  -artifact_prefix="$here/fuzz/artifacts/$target/" \
  -print_final_stats=1 \
  "${parallel[@]}"
log "no crash in ${secs}s"
