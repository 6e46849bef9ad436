#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (unit and end-to-end on the real binaries).
# Extra arguments go to `swift test`, e.g. scripts/test.sh --filter EndToEnd
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh
ensure_packages
ensure_packages chromium   # the report test renders report.html in headless Chromium
say "building"
swift build --build-tests
say "testing"
swift test --skip-build "$@"
