#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit and end-to-end on the real binaries),
# the swarm check and the example package, then prints how long each phase took.
# Extra arguments go to `swift test`, e.g. scripts/test.sh --filter EndToEnd (then only that runs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh

# Each phase's wall time, printed at the end (also when a phase fails).
phases=()
phase_name=""
milliseconds() { echo $(( $(date +%s%N) / 1000000 )); }
seconds_since() { awk -v ms="$(( $(milliseconds) - $1 ))" 'BEGIN { printf "%6.1f s", ms / 1000 }'; }
all_started=$(milliseconds)
phase_started=$all_started
phase() {
  [ -z "$phase_name" ] || phases+=("$(printf '%-40s %s' "$phase_name" "$(seconds_since "$phase_started")")")
  phase_name="$1"
  phase_started=$(milliseconds)
  [ -z "$1" ] || say "$1"
}
report_phases() {
  phase ""
  printf '\nphases:\n' >&2
  printf '  %s\n' "${phases[@]}" >&2
  printf '  %-40s %s\n' "total" "$(seconds_since "$all_started")" >&2
}
trap report_phases EXIT

phase "installing what the build needs"
ensure_packages
# What only the tests need installs while the build runs (a fresh machine spends ~40 s on it,
# most of it Chromium): the JUnit test validates `--junit` output with xmllint (libxml2-utils);
# the foreign-client test runs Tests/Fixtures/foreign_client.py with Debian's python3-zmq; the
# report test renders report.html in headless Chromium (Debian's package; where there is no such
# package, e.g. Ubuntu's snap-only chromium, that one test says what is missing).
test_packages=(libxml2-utils python3-zmq)
if apt-cache show chromium >/dev/null 2>&1 || dpkg -s chromium >/dev/null 2>&1; then test_packages+=(chromium); fi
# The deploy files' test validates the Kubernetes manifests and the CI-matrix example with
# kubernetes-validate and check-jsonschema, from PyPI.
pip_packages=()
command -v kubernetes-validate >/dev/null || pip_packages+=(kubernetes-validate)
command -v check-jsonschema >/dev/null || pip_packages+=(check-jsonschema)
install_log=$(mktemp)
(
  ensure_packages "${test_packages[@]}"
  if [ "${#pip_packages[@]}" -gt 0 ]; then
    python3 -m pip install --quiet --disable-pip-version-check "${pip_packages[@]}"
  fi
) >"$install_log" 2>&1 &
installer=$!

# On CI (CI=true) the debug build carries no debug info: nobody attaches a debugger there, and a
# trap's backtrace still names its functions. It spends ~15 % less CPU: cold builds with the tests
# here took 153 s and 159 s against 178 s with it (user time 4m39-4m52 against 5m29). A developer's
# own runs keep it, so their `swift build` reuses what this one built. (An empty array expands to
# nothing under `set -u` from bash 4.4 on.)
# It also links with the toolchain's lld where there is one: gold took 0.8-1.1 s per debug
# product here against 0.5 s (eight products: the binaries, the test bundle and the example's).
# And it optimizes PairSimCore (Package.swift says what that costs and saves).
swift_flags=()
if [ "${CI:-}" = true ]; then
  export PAIRSIM_OPTIMIZE_CORE=1
  swift_flags=(-Xswiftc -gnone)
  if [ -x "$(dirname "$(readlink -f "$(command -v swiftc)")")/ld.lld" ]; then swift_flags+=(-Xswiftc -use-ld=lld); fi
fi
phase "building"
swift build --build-tests "${swift_flags[@]}"

phase "installing what the tests need"
if ! wait "$installer"; then cat "$install_log"; fail "installing ${test_packages[*]} failed"; fi
rm -f "$install_log"

if [ $# -gt 0 ]; then
  phase "testing (swift test $*)"
  swift test --skip-build "${swift_flags[@]}" "$@"
  exit 0
fi

# A developer's own package (docs/APPS.md), built against this checkout into the same build
# folder: SwiftPM then compiles only the example's own targets (~15 s here) instead of all of
# PairSim a second time (~85 s). SwiftPM keeps a path dependency's file list from the last
# manifest load, so a PairSim source file added since the example's last build is missed
# (undefined symbols) until the manifest is touched (seen here: a new SyncEngine+Status.swift).
phase "building Examples/MyHealthApp"
touch Examples/MyHealthApp/Package.swift
# The build plan in .build is the root package's: without it gone SwiftPM may keep that plan and
# build nothing of the example (seen here after renaming its executable).
rm -f .build/debug.yaml
swift build --package-path Examples/MyHealthApp --scratch-path "$PWD/.build" "${swift_flags[@]}"
bin="$(swift build --show-bin-path "${swift_flags[@]}")"

phase "testing"
swift test --skip-build "${swift_flags[@]}"

# The simulator with a nemesis over many seeds (docs/SCENARIOS.md#the-nemesis-and-the-invariants):
# kills, restarts and partitions drawn from each seed, invariants checked against the fault-free run.
# Sized for the debug build CI has, PairSimCore optimized (Package.swift: what that costs and
# saves): 17-25 s on 2 cores when quiet. Longer swarms run on a release build, in shards if need be
# (docs/SWARM.md). Optimizing PairSimKit, the apps and PairSimulation too cost 76 s more build
# for about the same savings; PairSimulation alone, 10 s more build for what the simulator's
# reads through `inout` now save without it. Running this beside `swift test` saved nothing
# (both keep the 2 cores busy).
phase "swarm: nemesis seeds in simulation"
"$bin/topology" swarm Topologies/scenarios/nodes-killed-mid-stream.yaml --seeds 150 --nemesis
# Every seed on the real journal and SQLite, power losses among the kills (R: K8).
"$bin/topology" swarm Topologies/scenarios/power-loss.yaml --seeds 40
"$bin/topology" swarm Topologies/scenarios/locked-during-workout.yaml --seeds 150 --nemesis
"$bin/topology" swarm Topologies/scenarios/delete-one-record.yaml --seeds 150 --nemesis
"$bin/topology" swarm Topologies/scenarios/wc-transfers-in-and-out-of-range.yaml --seeds 150 --nemesis
"$bin/topology" swarm Topologies/scenarios/wc-userinfo-stuck.yaml --seeds 40 --nemesis
"$bin/topology" swarm Topologies/scenarios/week-of-normal-life.yaml --seeds 12 --nemesis
# A developer's watch app (workout-watch): its workout session survives the nemesis's kills.
"$bin/topology" swarm Topologies/scenarios/hosted-watch-workout.yaml --seeds 40 --nemesis

# The example's scenarios with its one executable, which is both nodes and every topology
# subcommand: in its simulator, over nemesis seeds, and on real processes in stepped time (the
# run's timing is the topology's, however busy the machine); then its phone half through
# `topology run --phone-bin`, as packages written before it was both nodes do.
phase "the field-bug gallery (docs/FIELD-BUGS.md): every buggy app fails, every fixed app passes"
# The real-process runs of its entries are in the tests above (FieldBugGalleryTests).
PAIRSIM_BIN="$bin" scripts/field-bugs.sh --seeds 6 --no-real

phase "Examples/MyHealthApp: simulate, swarm and run"
for scenario in hrv-drop workout-to-phone; do
  "$bin/my-health" simulate "Examples/MyHealthApp/Scenarios/$scenario.yaml"
  "$bin/my-health" run "Examples/MyHealthApp/Scenarios/$scenario.yaml" --clock stepped --dir "$(mktemp -d)"
done
"$bin/my-health" swarm Examples/MyHealthApp/Scenarios/workout-to-phone.yaml --seeds 16 --nemesis
"$bin/topology" run Examples/MyHealthApp/Scenarios/hrv-drop.yaml \
  --phone-bin "$bin/my-health" --clock stepped --dir "$(mktemp -d)"
