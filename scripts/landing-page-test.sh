#!/usr/bin/env bash
# The landing page in a real browser: starts the demo, has Debian's headless Chromium take a
# screenshot of / (kept for the reader: $LANDING_SCREENSHOT, default .tmp/landing-screenshot.png)
# and dump its DOM, then checks that the page shows every unit /metrics reports (upstash_up), under
# its account and source, with its outcome, and every discovered database with its name.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

command -v chromium >/dev/null || ensure_packages chromium
[ -f dist/main.js ] || npm run build

screenshot=${LANDING_SCREENSHOT:-.tmp/landing-screenshot.png}
mkdir -p "$(dirname "$screenshot")"
port=$(free_port)
work=$(mktemp -d)
setsid node dist/main.js --demo --web.listen-address "127.0.0.1:$port" >"$work/demo.log" 2>&1 &
pid=$!
trap 'kill -- -"$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

wait_ready "http://127.0.0.1:$port" "$work/demo.log"

chrome() {
  # No network but the page's, no profile of the user's, no GPU: the same page on every machine.
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --window-size=1400,1000 "$@" "http://127.0.0.1:$port/" 2>>"$work/chromium.log"
}

chrome --screenshot="$screenshot" >/dev/null
[ "$(head -c 8 "$screenshot" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
  { cat "$work/chromium.log"; fail "no PNG screenshot"; }
log "screenshot: $screenshot ($(wc -c <"$screenshot") bytes)"

# The units can change between two reads (the demo's fleet changes once, 45 s in): the DOM is read
# between two reads of /metrics, and the check runs on a pair that agree.
for attempt in 1 2 3; do
  curl -sf "http://127.0.0.1:$port/metrics" >"$work/before.txt"
  chrome --dump-dom >"$work/dom.html"
  curl -sf "http://127.0.0.1:$port/metrics" >"$work/after.txt"
  if [ "$(grep '^upstash_up{' "$work/before.txt")" = "$(grep '^upstash_up{' "$work/after.txt")" ]; then break; fi
  [ "$attempt" -lt 3 ] || fail "the units kept changing while the page was read"
done

node --input-type=module - "$work/dom.html" "$work/after.txt" <<'EOF'
import { readFileSync } from 'node:fs';
const [dom, metrics] = process.argv.slice(2).map((file) => readFileSync(file, 'utf8'));
const problems = [];
const labels = (text) => Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
const units = [...metrics.matchAll(/^upstash_up\{([^}]*)\} (\S+)$/gm)].map((m) => ({ ...labels(m[1]), up: m[2] === '1' }));
const names = new Map(
  [...metrics.matchAll(/^upstash_redis_database_info\{([^}]*)\}/gm)].map((m) => labels(m[1])).map((l) => [l.database_id, l.database_name]),
);
if (units.length === 0) problems.push('/metrics has no upstash_up series');
if (!dom.includes('<h1>Upstash exporter</h1>')) problems.push('no heading');
const summary = /class="summary">(\d+) units?:/.exec(dom);
if (Number(summary?.[1]) !== units.length) problems.push(`summary says ${summary?.[1]} units, /metrics ${units.length}`);
for (const link of ['metrics', 'healthz', 'readyz']) if (!dom.includes(`href="${link}"`)) problems.push(`no link to /${link}`);
for (const unit of units) {
  const section = dom.split('<section>').find((s) => s.includes(`Account <q>${unit.account}</q>`)) ?? '';
  const group = section.split('<tbody>').find((g) => new RegExp(`^<tr><th [^>]*>${unit.source}\\b`).test(g)) ?? '';
  const id = unit.database_id || unit.qstash_id;
  const row = group.split('<tr>').find((r) => (id === '' ? r.includes('whole account') : r.includes(`<span class="id">${id}</span>`)));
  const what = `${unit.source}/${unit.account}/${id}`;
  if (row === undefined) problems.push(`${what}: no row`);
  else if (!row.includes(`class="state ${unit.up ? 'up' : 'down'}"`)) problems.push(`${what}: not shown ${unit.up ? 'up' : 'down'}`);
  else if (unit.database_id && names.has(id) && !row.includes(`${names.get(id)}<span class="id">`)) problems.push(`${what}: no name ${names.get(id)}`);
}
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`landing page: ${units.length} units shown with their outcome, ${names.size} databases by name`);
EOF
echo "landing-page-test: passed"
