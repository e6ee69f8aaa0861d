#!/usr/bin/env bash
# The CLI over a fleet-sized selection (issue 18): COUNT busy segments (the
# fixture bucket's six ~1 MB ones, copied round-robin) laid out as dial9's v1
# keys under 20 hosts of one service, then, RUNS times each, interleaved:
#   - `d9lens analyze DIR` on every core, and on one (taskset -c 0);
#   - inflating the same files and nothing else (gzip -dc, one core): the floor.
# Prints each run and the medians; peak RSS of the last analyze run.
#
# Usage: scripts/bench-fleet.sh [COUNT=240] [RUNS=5]     (NO_BUILD=1 skips the build)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-240}
runs=${2:-5}
export PATH="$HOME/.cargo/bin:$PATH"

[ -n "${NO_BUILD:-}" ] || cargo build --release -q -p d9lens-cli
bin=target/release/d9lens

dir=$(mktemp -d /tmp/d9lens-fleet-XXXXXX)
trap 'rm -rf "$dir"' EXIT
mapfile -t busy < <(find tests/fixtures/s3-bucket -name '*.bin.gz' -size +500k | sort)
for i in $(seq 0 $((count - 1))); do
  host=$((i % 20))
  seg=$((i / 20))
  # A segment every 15 s per host; date= and time= are its start's.
  ts=$((1796047535 + 15 * seg))
  out="$dir/version=1/date=$(date -u -d @$ts +%F)/service=checkout-api/time=$(date -u -d @$ts +%H%M)/instance=ip-10-0-9-$host/boot=fleet-$host"
  mkdir -p "$out"
  cp "${busy[$((i % ${#busy[@]}))]}" "$out/$ts-$seg.bin.gz"
done
files=$(find "$dir" -name '*.bin.gz' | sort)
gz=$(cat $files | wc -c)
raw=$(for f in $files; do gzip -dc "$f"; done | wc -c)
printf 'fleet: %d segments, %.1f MB gzip, %.1f MB raw, %d cores\n' "$count" "$((gz))e-6" "$((raw))e-6" "$(nproc)"

ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
all=() one=() inflate=()
for r in $(seq 1 "$runs"); do
  a=$(ms "$bin" analyze "$dir")
  o=$(ms taskset -c 0 "$bin" analyze "$dir")
  z=$(ms taskset -c 0 sh -c "for f in $(echo $files | tr '\n' ' '); do gzip -dc \"\$f\"; done")
  all+=("$a") one+=("$o") inflate+=("$z")
  echo "run $r: every core $a ms, one core $o ms, inflating alone (one core) $z ms"
done
ma=$(median "${all[@]}") mo=$(median "${one[@]}") mz=$(median "${inflate[@]}")
echo "median: every core $ma ms, one core $mo ms (speed-up $(awk "BEGIN {printf \"%.2f\", $mo / $ma}")x), inflating alone $mz ms (analysis on every core / inflating: $(awk "BEGIN {printf \"%.2f\", $ma / $mz}")x)"
/usr/bin/time -f 'peak RSS of one analyze run (every core): %M KB' "$bin" analyze "$dir" >/dev/null
