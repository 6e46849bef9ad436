# Shared helpers for PairSim's scripts. Source it; do not run it.

if [ -t 2 ]; then
  say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
else
  say() { printf '==> %s\n' "$*" >&2; }
fi
fail() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Installs Debian packages, only the missing ones (apt-get update once). Default: what the build needs.
ensure_packages() {
  local missing=()
  local wanted=("$@")
  [ "${#wanted[@]}" -gt 0 ] || wanted=(libzmq3-dev libsqlite3-dev libarchive-dev)
  for package in "${wanted[@]}"; do
    # Installed, not merely known: a removed package's leftover configuration still answers `dpkg -s`.
    [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" = "install ok installed" ] || missing+=("$package")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    command -v apt-get >/dev/null || fail "missing ${missing[*]} and no apt-get to install them"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
      command -v sudo >/dev/null || fail "missing ${missing[*]}: run as root or install sudo"
      sudo="sudo"
    fi
    say "installing ${missing[*]}"
    if [ -z "${PAIRSIM_APT_UPDATED:-}" ]; then $sudo apt-get update -qq; PAIRSIM_APT_UPDATED=1; fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  command -v swift >/dev/null || fail "swift is not on PATH (expected Swift 6.1 or later)"
}
