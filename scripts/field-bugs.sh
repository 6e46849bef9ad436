#!/usr/bin/env bash
# Checks the field-bug gallery (docs/FIELD-BUGS.md): for every entry of Examples/FieldBugs/gallery.tsv,
# the buggy app fails its scenario on every seed and the fixed app passes on every seed, in
# simulation (`field-bugs swarm`); the entries marked "real" are also played on real watch-node and
# phone-node processes (`field-bugs run --clock stepped`): the buggy app fails, the fixed one passes.
#
#   scripts/field-bugs.sh [--seeds N] [--no-real] [ENTRY…]     e.g. scripts/field-bugs.sh 01 07
#
# Builds `field-bugs` first unless PAIRSIM_BIN names a directory holding it (scripts/test.sh does).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/common.sh

seeds=8
real=1
entries=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seeds) [ $# -ge 2 ] && [[ "$2" =~ ^[1-9][0-9]*$ ]] || fail "--seeds needs a positive number"; seeds=$2; shift 2 ;;
    --no-real) real=0; shift ;;
    -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) fail "unknown option $1 (try --help)" ;;
    *) entries+=("$1"); shift ;;
  esac
done

if [ -n "${PAIRSIM_BIN:-}" ]; then
  bin=$PAIRSIM_BIN
else
  ensure_packages
  say "building field-bugs"
  swift build --product field-bugs
  bin="$(swift build --show-bin-path)"
fi
[ -x "$bin/field-bugs" ] || fail "$bin/field-bugs is missing: build it with swift build --product field-bugs"

gallery=Examples/FieldBugs/gallery.tsv
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
problems=0
checked=0

# `field-bugs swarm`'s count of failed seeds for one app (its last line ends "K failed").
failed_seeds() {
  local scenario=$1 option=$2 app=$3 out
  out=$("$bin/field-bugs" swarm "$scenario" --seeds "$seeds" "$option" "$app" 2>&1 || true)
  echo "$out" > "$work/$app.swarm"
  echo "$out" | tail -1 | sed -n 's/.*: \([0-9][0-9]*\) failed.*/\1/p'
}

# Plays one app on real processes; prints "failed" or "passed".
real_run() {
  local scenario=$1 option=$2 app=$3
  if "$bin/field-bugs" run "$scenario" --clock stepped "$option" "$app" --dir "$work/$app.run" >"$work/$app.real" 2>&1; then
    echo passed
  else
    echo failed
  fi
}

while IFS=$'\t' read -r entry device scenario buggy fixed mode; do
  case "$entry" in ''|'#'*) continue ;; esac
  if [ "${#entries[@]}" -gt 0 ] && [[ ! " ${entries[*]} " =~ " $entry " ]]; then continue; fi
  checked=$((checked + 1))
  option=--app
  [ "$device" = watch ] && option=--watch-app
  path=Examples/FieldBugs/Scenarios/$scenario
  [ -f "$path" ] || fail "$gallery: entry $entry names $path, which does not exist"
  buggy_failed=$(failed_seeds "$path" "$option" "$buggy")
  fixed_failed=$(failed_seeds "$path" "$option" "$fixed")
  verdict="ok"
  if [ "$buggy_failed" != "$seeds" ]; then verdict="BUGGY APP PASSED ${seeds}-${buggy_failed:-?} SEED(S)"; fi
  if [ "$fixed_failed" != 0 ]; then verdict="FIXED APP FAILED ${fixed_failed:-?} SEED(S)"; fi
  line=$(printf '%s %-34s buggy fails %s/%s seeds, fixed passes %s/%s' "$entry" "${scenario%.yaml}" \
    "${buggy_failed:-?}" "$seeds" "$((seeds - ${fixed_failed:-$seeds}))" "$seeds")
  if [ "$real" = 1 ] && [ "$mode" = real ]; then
    buggy_real=$(real_run "$path" "$option" "$buggy")
    fixed_real=$(real_run "$path" "$option" "$fixed")
    line="$line; real processes: buggy $buggy_real, fixed $fixed_real"
    [ "$buggy_real" = failed ] || verdict="BUGGY APP PASSED ON REAL PROCESSES"
    [ "$fixed_real" = passed ] || verdict="FIXED APP FAILED ON REAL PROCESSES (its output: below)"
  fi
  if [ "$verdict" = ok ]; then
    echo "✔ $line"
  else
    problems=$((problems + 1))
    echo "✘ $line — $verdict"
    for file in "$work/$buggy".* "$work/$fixed".*; do [ -f "$file" ] && sed 's/^/    /' "$file" | tail -20; done
  fi
done < "$gallery"

[ "$checked" -gt 0 ] || fail "no entry of $gallery matches ${entries[*]}"
if [ "$problems" -gt 0 ]; then fail "$problems of $checked gallery entries did not reproduce"; fi
echo "field-bug gallery: $checked entries reproduced (buggy fails, fixed passes) on $seeds seeds each"
