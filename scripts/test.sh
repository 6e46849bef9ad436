#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit and end-to-end on the real binaries).
# Extra arguments go to `swift test`, e.g. scripts/test.sh --filter EndToEnd
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
ensure_packages
# The JUnit test validates `--junit` output against Tests/Fixtures/junit.xsd with xmllint; the
# foreign-client test runs Tests/Fixtures/foreign_client.py with Debian's python3 and python3-zmq.
ensure_packages libxml2-utils python3-zmq
# The report test renders report.html in headless Chromium (Debian's package; where there is no
# such package, e.g. Ubuntu's snap-only chromium, that one test says what is missing).
if apt-cache show chromium >/dev/null 2>&1 || dpkg -s chromium >/dev/null 2>&1; then
  ensure_packages chromium
fi
say "building"
swift build --build-tests
say "testing"
swift test --skip-build "$@"
# The simulator with a nemesis over a few hundred seeds (docs/SCENARIOS.md#the-nemesis-and-the-invariants):
# kills, restarts and partitions drawn from each seed, invariants checked against the fault-free run.
if [ $# -eq 0 ]; then
  say "swarm: nemesis seeds in simulation"
  bin="$(swift build --show-bin-path)"
  "$bin/topology" swarm Topologies/scenarios/nodes-killed-mid-stream.yaml --seeds 300 --nemesis
  "$bin/topology" swarm Topologies/scenarios/locked-during-workout.yaml --seeds 300 --nemesis
  "$bin/topology" swarm Topologies/scenarios/delete-one-record.yaml --seeds 300 --nemesis
  "$bin/topology" swarm Topologies/scenarios/wc-transfers-in-and-out-of-range.yaml --seeds 300 --nemesis
  "$bin/topology" swarm Topologies/scenarios/week-of-normal-life.yaml --seeds 40 --nemesis
fi
# A developer's own package (docs/APPS.md): it builds against this checkout, runs its scenario in
# its own simulator, and on real processes through topology run --phone-bin. (Skipped when the
# arguments pick tests.)
if [ $# -eq 0 ]; then
  say "building Examples/MyHealthApp"
  # SwiftPM keeps a path dependency's file list from the last manifest load, so a PairSim source
  # file added since the example's last build is missed (undefined symbols) until the manifest is
  # touched (seen here: a new SyncEngine+Status.swift broke the incremental example build).
  touch Examples/MyHealthApp/Package.swift
  swift build --package-path Examples/MyHealthApp
  example_bin="$(swift build --package-path Examples/MyHealthApp --show-bin-path)"
  say "Examples/MyHealthApp: its scenario in its simulator, then on real processes"
  "$example_bin/my-phone-node" simulate Examples/MyHealthApp/Scenarios/hrv-drop.yaml
  "$(swift build --show-bin-path)/topology" run Examples/MyHealthApp/Scenarios/hrv-drop.yaml \
    --phone-bin "$example_bin/my-phone-node" --time-scale 600 --dir "$(mktemp -d)"
fi
