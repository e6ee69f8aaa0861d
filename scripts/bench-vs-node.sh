#!/usr/bin/env bash
# Native d9lens vs dial9's reference analyzer (node analyze.js), on one trace.
#
# Usage: scripts/bench-vs-node.sh [TRACE]        (default tests/fixtures/demo-trace.bin)
# Env:   RUNS=5        timed runs of d9lens (node gets NODE_RUNS, default 3: ~10 s each;
#                      PAIRS, default NODE_RUNS: node + 5 d9lens runs side by side)
#        NO_BUILD=1    skip `cargo build --release -p d9lens-cli`
#        STRICT=1      exit 2 when a target (≥ 40× faster, peak RSS < 5× raw trace) is missed
#        OUT=DIR       where outputs, timings and summary.md go (default target/bench-vs-node)
#
# What it does, in order:
#   1. makes sure crates.io `dial9-viewer` 0.5.7 (which ships the reference
#      analyzer under skills/dial9-toolkit/scripts/) is in the local cargo registry;
#   2. builds the CLI with the release profile (LTO, as shipped);
#   3. runs both once and diffs their stdout: `d9lens analyze --reference-compatible`
#      must print byte-for-byte what `node analyze.js` prints (exit 1 if not);
#   4. times both: wall time with hyperfine when installed (`apt-get install -y
#      hyperfine`), and in every case a loop under `/usr/bin/time -v` for wall,
#      CPU (user+sys) and peak RSS; medians are reported;
#   5. prints a summary (also in $OUT/summary.md) with the speed-up and memory
#      ratios against the targets.
# The machine is shared: compare CPU time as well as wall time, and rerun when
# the load average is high (it is printed).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
export PATH="$HOME/.cargo/bin:$PATH"
trace=$(realpath "${1:-$here/tests/fixtures/demo-trace.bin}")
runs=${RUNS:-5}
node_runs=${NODE_RUNS:-3}
out=${OUT:-$here/target/bench-vs-node}
viewer_version=0.5.7
mkdir -p "$out"

log() { printf '\033[1m[bench]\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31m[bench]\033[0m %s\n' "$*" >&2; exit 1; }

command -v node >/dev/null || die "node is not installed"
if [ ! -x /usr/bin/time ]; then
  [ "$(id -u)" = 0 ] || die "/usr/bin/time is missing (Debian package 'time')"
  log "installing GNU time"
  apt-get install -y -qq time >/dev/null || { apt-get update -qq && apt-get install -y -qq time >/dev/null; }
fi

# 1. The reference analyzer, from the crates.io package (cargo info downloads and unpacks it).
find_scripts() {
  ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/dial9-viewer-$viewer_version/skills/dial9-toolkit/scripts 2>/dev/null | head -n1
}
scripts=$(find_scripts || true)
if [ -z "$scripts" ]; then
  log "fetching dial9-viewer $viewer_version into the cargo registry"
  (cd /tmp && cargo info "dial9-viewer@$viewer_version" >/dev/null)
  scripts=$(find_scripts || true)
fi
if [ -z "$scripts" ]; then
  # cargo info only left the .crate in the cache: unpack it ourselves.
  crate=$(ls "${CARGO_HOME:-$HOME/.cargo}"/registry/cache/*/dial9-viewer-$viewer_version.crate 2>/dev/null | head -n1)
  [ -n "$crate" ] || die "dial9-viewer $viewer_version not found in the cargo registry"
  tar -xzf "$crate" -C "$out"
  scripts=$out/dial9-viewer-$viewer_version/skills/dial9-toolkit/scripts
fi
[ -f "$scripts/analyze.js" ] || die "no analyze.js in $scripts"
log "reference: $scripts/analyze.js (node $(node --version))"

# 2. The native CLI, release profile.
if [ -z "${NO_BUILD:-}" ]; then
  log "building d9lens (release)"
  (cd "$here" && cargo build --release -p d9lens-cli --quiet)
fi
native=$here/target/release/d9lens
[ -x "$native" ] || die "$native missing (unset NO_BUILD)"

node_cmd=(node "$scripts/analyze.js" "$trace")
native_cmd=("$native" analyze --reference-compatible "$trace")

# 3. Same output.
log "checking outputs are identical"
"${node_cmd[@]}" >"$out/node.txt" 2>"$out/node.stderr"
"${native_cmd[@]}" >"$out/native.txt" 2>"$out/native.stderr"
if ! diff -u "$out/node.txt" "$out/native.txt" >"$out/output.diff"; then
  head -n 40 "$out/output.diff" >&2
  die "outputs differ (full diff: $out/output.diff)"
fi
log "outputs identical ($(wc -l <"$out/native.txt") lines)"

# Raw (inflated) trace size: the memory target is relative to it.
if [ "$(head -c2 "$trace" | od -An -tx1 | tr -d ' \n')" = 1f8b ]; then
  raw_bytes=$(gzip -dc "$trace" | wc -c)
else
  raw_bytes=$(stat -c %s "$trace")
fi

# 4a. hyperfine (wall time), when present.
if command -v hyperfine >/dev/null; then
  log "hyperfine: $node_runs node runs, $runs native runs"
  hyperfine --style basic --warmup 1 --export-json "$out/hyperfine-node.json" --runs "$node_runs" \
    -n node "$(printf '%q ' "${node_cmd[@]}")" >"$out/hyperfine-node.txt" 2>&1 || die "hyperfine (node) failed"
  hyperfine --style basic --warmup 1 --export-json "$out/hyperfine-native.json" --runs "$runs" \
    -n d9lens "$(printf '%q ' "${native_cmd[@]}")" >"$out/hyperfine-native.txt" 2>&1 || die "hyperfine (native) failed"
  cat "$out/hyperfine-node.txt" "$out/hyperfine-native.txt" >&2
else
  log "hyperfine not installed (apt-get install -y hyperfine); using /usr/bin/time only"
fi

# 4b. /usr/bin/time -v: wall, CPU and peak RSS per run; one line "wall cpu rss_kb" each.
time_runs() { # name count cmd...
  local name=$1 n=$2
  shift 2
  : >"$out/$name.runs"
  for _ in $(seq "$n"); do
    /usr/bin/time -v "$@" >/dev/null 2>"$out/$name.time"
    awk -F': ' '
      /Elapsed \(wall clock\)/ { n = split($2, p, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + p[i] }
      /User time/ { u = $2 } /System time/ { s = $2 } /Maximum resident/ { r = $2 }
      END { printf "%.3f %.3f %d\n", w, u + s, r }' "$out/$name.time" >>"$out/$name.runs"
  done
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
col() { awk -v c="$2" '{ print $c }' "$out/$1.runs"; }

log "timing under /usr/bin/time -v ($node_runs node, $runs native)"
time_runs node "$node_runs" "${node_cmd[@]}"
time_runs native "$runs" "${native_cmd[@]}"

node_wall=$(col node 1 | median); native_wall=$(col native 1 | median)
node_cpu=$(col node 2 | median); native_cpu=$(col native 2 | median)
node_rss=$(col node 3 | sort -n | tail -n1); native_rss=$(col native 3 | sort -n | tail -n1)
if [ -f "$out/hyperfine-node.json" ]; then
  node_wall=$(node -e 'console.log(require(process.argv[1]).results[0].median.toFixed(3))' "$out/hyperfine-node.json")
  native_wall=$(node -e 'console.log(require(process.argv[1]).results[0].median.toFixed(3))' "$out/hyperfine-native.json")
fi

# 4c. Pairs: node once, then d9lens five times right after. A shared VM
# swings between slow and fast phases within minutes (and node gains more
# than d9lens in a fast one), so each pair's speed-up (node / median d9lens)
# compares the two in the same phase.
pairs=${PAIRS:-$node_runs}
log "timing $pairs pairs (node, then d9lens ×5)"
now_ns() { date +%s%N; }
: >"$out/pairs"
for _ in $(seq "$pairs"); do
  t0=$(now_ns)
  "${node_cmd[@]}" >/dev/null 2>&1
  t1=$(now_ns)
  : >"$out/pair-native"
  for _ in 1 2 3 4 5; do
    a=$(now_ns)
    "${native_cmd[@]}" >/dev/null 2>&1
    b=$(now_ns)
    echo $((b - a)) >>"$out/pair-native"
  done
  awk -v n=$((t1 - t0)) -v m="$(median <"$out/pair-native")" 'BEGIN { printf "%.1f\n", n / m }' >>"$out/pairs"
done
speed_pairs=$(median <"$out/pairs")

# 5. Summary.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0) ? a / b : 0 }'; }
speed_wall=$(ratio "$node_wall" "$native_wall")
speed_cpu=$(ratio "$node_cpu" "$native_cpu")
mem_ratio=$(awk -v r="$native_rss" -v b="$raw_bytes" 'BEGIN { printf "%.2f", r * 1024 / b }')
verdict_speed=$(awk -v s="$speed_wall" 'BEGIN { print (s >= 40) ? "met" : "MISSED" }')
verdict_mem=$(awk -v m="$mem_ratio" 'BEGIN { print (m < 5) ? "met" : "MISSED" }')
mb() { awk -v k="$1" 'BEGIN { printf "%.1f MB", k * 1024 / 1e6 }'; }

{
  echo "## d9lens vs node analyze.js — $(basename "$trace")"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg), node $(node --version), dial9-viewer $viewer_version"
  echo "raw trace: $raw_bytes bytes ($(mb $((raw_bytes / 1024))))"
  echo
  echo "| | node analyze.js | d9lens --reference-compatible | ratio |"
  echo "|---|---|---|---|"
  echo "| wall, median (s) | $node_wall | $native_wall | ${speed_wall}× |"
  echo "| CPU user+sys, median (s) | $node_cpu | $native_cpu | ${speed_cpu}× |"
  echo "| peak RSS | $(mb "$node_rss") | $(mb "$native_rss") | native = ${mem_ratio}× raw trace |"
  echo
  echo "- output identical: yes"
  echo "- speed-up pair by pair (node, then d9lens ×5 right after; median of $pairs): ${speed_pairs}× ($(paste -sd' ' "$out/pairs"))"
  echo "- target ≥ 40× faster (wall): $verdict_speed (${speed_wall}×; CPU time ${speed_cpu}×)"
  echo "- target peak RSS < 5× raw trace: $verdict_mem (${mem_ratio}×)"
} | tee "$out/summary.md"

if [ -n "${STRICT:-}" ] && { [ "$verdict_speed" != met ] || [ "$verdict_mem" != met ]; }; then
  exit 2
fi
