#!/usr/bin/env bash
# Benchmarks, on a release build: scripts/bench.sh [sync|turn|downsample|simulate|locked|swarm|replay|rows|all]
# Speed targets are checked here, never by timed assertions in tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh

what="${1:-all}"
case "$what" in sync|turn|downsample|simulate|locked|swarm|replay|rows|all) ;; *) fail "unknown benchmark '$what' (sync, turn, downsample, simulate, locked, swarm, replay, rows or all)";; esac
ensure_packages
say "building (release)"
build_log=$(mktemp)
if ! swift build -c release >"$build_log" 2>&1; then cat "$build_log"; fail "the build failed"; fi
rm -f "$build_log"
BIN="$(swift build -c release --show-bin-path)"
if [ "$what" = all ]; then set -- downsample sync turn locked simulate swarm replay rows; else set -- "$what"; fi
# Where a simulated week's time goes: perf's sampling profile of the simulate benchmark, its top
# entries by own time (linux-perf from Debian; a machine where perf cannot sample says so).
profile_simulate() {
  ensure_packages linux-perf
  local data
  data=$(mktemp)
  if ! perf record -F 4000 -o "$data" "$BIN/pairsim-bench" simulate --apps reference --repeats 20 >/dev/null 2>&1; then
    echo "profile: perf record failed on this machine"
    rm -f "$data"
    return 0
  fi
  echo "profile: top entries by own time (perf record, 20 simulated weeks, the reference app)"
  perf report -i "$data" --no-children --sort dso,symbol --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -15 \
    | swift demangle --simplified | cut -c1-150
  rm -f "$data"
}

for bench in "$@"; do
  "$BIN/pairsim-bench" "$bench"
  if [ "$bench" = simulate ]; then profile_simulate; fi
  echo
done
