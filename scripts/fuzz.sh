#!/usr/bin/env bash
# Bounded fuzzing of one target (fuzz/fuzz_targets/TARGET.rs):
#   analyze  the whole per-file path
#   answers  what the page reads from workers and S3 besides traces
#   bucket   a walk of listing answers into the catalog
#   links    a shared link's URL fragment (bucket state, timeline keys, endpoint)
#   merge    up to four traces analyzed, sent over the wire, merged in two orders
#   inspect  diagnose, zoom and the page's questions about one trace
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
# or the target's seeds in fuzz/seeds/TARGET (a file's outcome and timeline
# as bytes, S3 XML, a walk's answers, URL fragments).
corpus=$here/fuzz/corpus/$target
max_len=65536
mkdir -p "$corpus" "$here/fuzz/artifacts/$target"
fx=tests/fixtures
if [ "$target" = analyze ]; then
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
  # Inputs stay small: a trace's cost grows with its length (at 16 KiB,
  # 500-760 inputs a second; docs/benchmarks.md).
  max_len=16384
elif [ "$target" = merge ]; then
  # Files separated by merge.rs's SEPARATOR: the heads of four segments of
  # one rotation (cut mid-event: each a decode error, its events before
  # kept), a whole small segment beside a gzipped head, and one file alone.
  sep=D9PART
  for i in 0 1 2 3; do
    head -c 3000 "$fx/rotation/trace.$i.bin"
    [ "$i" = 3 ] || printf %s "$sep"
  done >"$corpus/seed-rotation-heads.bin"
  { cat "$fx/rotation/trace.4.bin"; printf %s "$sep"; head -c 2000 "$fx/rotation/trace.0.bin" | gzip -9n; } \
    >"$corpus/seed-whole-and-gzip.bin"
  head -c 4000 "$fx/rotation/trace.1.bin" >"$corpus/seed-one.bin"
  max_len=16384
elif [ "$target" = inspect ]; then
  # inspect.rs's 8-byte header (question kind, worker, poll, window from/to,
  # zoom half-width, diagnose options, profiling rate), then the trace: a
  # small segment with each kind of question, and a gzipped head.
  seed=$fx/rotation/trace.4.bin
  i=0
  for header in '\x00\x00\x03\x20\x40\x10\x03\x00' '\x01\x01\x00\x10\xc0\x08\x12\x63' \
    '\x02\x00\x00\x40\x80\x00\x00\x02' '\x03\x00\x00\x00\xff\xff\xf1\x01'; do
    { printf "$header"; cat "$seed"; } >"$corpus/seed-trace4-$i.bin"
    i=$((i + 1))
  done
  { printf '\x00\x02\x05\x00\xff\x40\x01\x00'; head -c 6000 "$seed" | gzip -9n; } >"$corpus/seed-trace4-head-gz.bin"
  max_len=16384
else
  cp "$here/fuzz/seeds/$target/"* "$corpus/"
fi
# The trace targets share analyze.dict (merge.dict adds its separator).
dicts=()
case $target in merge | inspect) dicts=("$here/fuzz/analyze.dict") ;; esac
[ -f "$here/fuzz/$target.dict" ] && dicts+=("$here/fuzz/$target.dict")
dict=()
if [ "${#dicts[@]}" -gt 0 ]; then
  cat "${dicts[@]}" >"$here/fuzz/corpus/$target.dict"
  dict=(-dict="$here/fuzz/corpus/$target.dict")
fi

log "building fuzz target $target (cargo fuzz, $(rustc --version))"
cargo fuzz build "$target"

# ASan without two of its costs: a stack trace saved at every allocation (it
# only annotates a report: replay the artifact for it) and fake stacks for
# use-after-return (safe Rust cannot cause one; the core has no unsafe code).
# 10-35% more inputs a second (docs/benchmarks.md); heap overflows and
# use-after-free still abort.
export ASAN_OPTIONS=${ASAN_OPTIONS:-malloc_context_size=0:detect_stack_use_after_return=0}

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
