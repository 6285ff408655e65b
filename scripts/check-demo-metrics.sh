#!/usr/bin/env bash
# Starts `npm run demo`, waits until every source has been polled, and runs `promtool check metrics`
# on its /metrics (text format): any finding fails. Also checks that every metric name of the
# contract is there.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

command -v promtool >/dev/null || ensure_packages prometheus
[ -f dist/main.js ] || npm run build

port=$(free_port)
out=$(mktemp)
setsid node dist/main.js --demo --web.listen-address "127.0.0.1:$port" >"$out" 2>&1 &
pid=$!
trap 'kill -- -"$pid" 2>/dev/null || true; rm -f "$out"' EXIT

for _ in $(seq 1 60); do
  if curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then break; fi
  sleep 0.5
done
curl -sf "http://127.0.0.1:$port/readyz" >/dev/null || { cat "$out"; fail "demo never became ready"; }
body=$(curl -sf "http://127.0.0.1:$port/metrics")

findings=$(printf '%s\n' "$body" | promtool check metrics 2>&1) || true
if [ -n "$findings" ]; then
  printf '%s\n' "$findings"
  fail "promtool check metrics reported findings on the demo's output"
fi
log "promtool check metrics: no findings ($(printf '%s\n' "$body" | grep -vc '^#') samples)"

# Every metric name of the contract is served by the demo (the `_omitted` counts at zero).
missing=()
for name in $(grep -o '`upstash_[a-z0-9_]*`' ../shared/CONTRACT.md 2>/dev/null | tr -d '`' | sort -u); do
  grep -q "^$name[{ ]" <<<"$body" || missing+=("$name")
done
[ "${#missing[@]}" -eq 0 ] || fail "the demo does not serve: ${missing[*]}"
echo "check-demo-metrics: passed"
