#!/usr/bin/env bash
# Benchmarks, on a release build: scripts/bench.sh [sync|turn|downsample|simulate|locked|swarm|replay|all]
# Speed targets are checked here, never by timed assertions in tests.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh

what="${1:-all}"
case "$what" in sync|turn|downsample|simulate|locked|swarm|replay|all) ;; *) fail "unknown benchmark '$what' (sync, turn, downsample, simulate, locked, swarm, replay or all)";; esac
ensure_packages
say "building (release)"
build_log=$(mktemp)
if ! swift build -c release >"$build_log" 2>&1; then cat "$build_log"; fail "the build failed"; fi
rm -f "$build_log"
BIN="$(swift build -c release --show-bin-path)"
if [ "$what" = all ]; then set -- downsample sync turn locked simulate swarm replay; else set -- "$what"; fi
for bench in "$@"; do
  "$BIN/pairsim-bench" "$bench"
  echo
done
