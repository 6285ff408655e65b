# Helpers shared by the CI scripts in this folder. Source it; it does nothing by itself.
# shellcheck shell=bash

log() { printf '==> %s\n' "$*" >&2; }
fail() {
  printf 'FAIL: %s\n' "$*" >&2
  exit 1
}

# as_root CMD...: run CMD as root (directly when we are root, else through sudo).
as_root() {
  if [ "$(id -u)" -eq 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    fail "need root for: $*"
  fi
}

# ensure_packages PKG...: install the Debian packages that are missing. Waits for another apt/dpkg run
# (e.g. one started in the background) instead of failing on the lock, and runs `apt-get update` only
# when the first try cannot find a package.
ensure_packages() {
  local missing=() pkg
  for pkg in "$@"; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
      missing+=("$pkg")
    fi
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 -y -q)
  if ! as_root "${apt[@]}" install "${missing[@]}"; then
    log "apt-get install failed; refreshing the package lists and trying again"
    as_root "${apt[@]}" update
    as_root "${apt[@]}" install "${missing[@]}"
  fi
}

# free_port: print a TCP port on 127.0.0.1 that is free right now.
free_port() {
  node -e "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

# Waits up to 30 s for URL/readyz to answer 200; otherwise prints LOG (the process's output) and fails.
wait_ready() {
  local url=$1 log=$2
  for _ in $(seq 1 60); do
    if curl -sf "$url/readyz" >/dev/null 2>&1; then return 0; fi
    sleep 0.5
  done
  cat "$log"
  fail "$url never became ready"
}
