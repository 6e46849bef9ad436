#!/usr/bin/env bash
# The first thing to run on a fresh machine: installs what is missing, builds (release), starts the
# default watch/phone pair, runs and finishes a workout on watch-node, and prints what phone-node
# logged about it. Exits 0 only if the phone saw the same workout UUID the watch finished.
#
#   TOPOLOGY=Topologies/instant.yaml scripts/run-pair.sh     # another topology
#   WORKOUT_SECONDS=20 scripts/run-pair.sh                     # a longer workout (wall seconds)
#   PAIRSIM_BIN=.build/debug scripts/run-pair.sh               # use built binaries, skip the build
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh

TOPOLOGY="${TOPOLOGY:-Topologies/default.yaml}"
WORKOUT_SECONDS="${WORKOUT_SECONDS:-10}"
ACTIVITY="${ACTIVITY:-running}"

ensure_packages
if [ -n "${PAIRSIM_BIN:-}" ]; then
  BIN="$PAIRSIM_BIN"
else
  say "building (release)"
  build_log=$(mktemp)
  if ! swift build -c release >"$build_log" 2>&1; then
    cat "$build_log"
    fail "the build failed"
  fi
  grep -E "^Build complete" "$build_log" || true
  rm -f "$build_log"
  BIN="$(swift build -c release --show-bin-path)"
fi
[ -x "$BIN/topology" ] || fail "build failed: $BIN/topology missing"
started=$(date +%s)

check=$("$BIN/topology" check "$TOPOLOGY") || fail "bad topology $TOPOLOGY"
name=$(head -1 <<<"$check" | sed -E 's/.*ok — ([^,]+),.*/\1/')
if "$BIN/topology" ctl -t "$TOPOLOGY" --timeout 1 phone ping >/dev/null 2>&1; then
  fail "a $name pair is already running; stop it first with: $BIN/topology down $TOPOLOGY"
fi
mkdir -p .pairsim
log=".pairsim/run-pair.log"
say "starting the $name pair from nothing (log: $log)"
"$BIN/topology" up "$TOPOLOGY" --no-stdin --color never --fresh >"$log" 2>&1 &
launcher=$!
cleanup() { "$BIN/topology" down "$TOPOLOGY" >/dev/null 2>&1 || true; wait "$launcher" 2>/dev/null || true; }
trap cleanup EXIT

for _ in $(seq 1 100); do
  grep -q "topology │ pair .* ready" "$log" && break
  kill -0 "$launcher" 2>/dev/null || { cat "$log"; fail "the pair did not start"; }
  sleep 0.2
done
grep -q "topology │ pair .* ready" "$log" || { cat "$log"; fail "the pair did not become ready"; }

ctl() { "$BIN/topology" ctl -t "$TOPOLOGY" "$@"; }
started_reply=$(ctl watch start-workout "$ACTIVITY") || fail "the watch refused start-workout: $started_reply"
say "watch: $started_reply"
sleep "$WORKOUT_SECONDS"
reply=$(ctl watch finish-workout) || fail "the watch refused finish-workout: $reply"
say "watch: $reply"
uuid=$(grep -oE 'workout=[0-9A-F-]{36}' <<<"$reply" | cut -d= -f2 || true)
[ -n "$uuid" ] || fail "the watch did not report a workout UUID"

say "waiting for phone-node to notice workout $uuid"
phone_log() { "$BIN/topology" log "$TOPOLOGY" --node phone; }
seen="" notified="" recorded=""
for _ in $(seq 1 450); do
  log_now=$(phone_log || true)
  grep -q "hk.saved.*$uuid" <<<"$log_now" && seen=yes
  grep -q "notification.posted.*$uuid" <<<"$log_now" && notified=yes
  grep -q "record.saved.*healthKitWorkoutID=$uuid" <<<"$log_now" && recorded=yes
  [ -n "$seen" ] && [ -n "$notified" ] && [ -n "$recorded" ] && break
  sleep 0.2
done

echo
say "phone-node's log from receipt of $uuid"
"$BIN/topology" log "$TOPOLOGY" --node phone | awk -v id="$uuid" 'found || index($0, id) { found = 1; print }'
echo
"$BIN/topology" down "$TOPOLOGY" >/dev/null
wait "$launcher" 2>/dev/null || true
trap - EXIT
elapsed=$(( $(date +%s) - started ))
if [ -n "$seen" ]; then
  [ -n "$notified" ] || say "note: no 'Workout completed' notification for $uuid (is the phone app force-quit or locked?)"
  [ -n "$recorded" ] || say "note: the ExerciseRecord for $uuid is still in the CloudKit channel"
  say "ok: phone-node saved workout $uuid (${elapsed}s after the build)"
else
  tail -n 40 "$log"
  fail "phone-node never logged workout $uuid"
fi
