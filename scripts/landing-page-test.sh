#!/usr/bin/env bash
# The landing page in a real browser, twice: has Debian's headless Chromium take a screenshot of /
# and dump its DOM, then checks that the page shows every unit /metrics reports (upstash_up), under
# its account and source, with its outcome, and every discovered database and index with its name.
#  1. healthy: the demo (`--demo`), once its injected faults show (the failing schedule starts 20 s
#     in): the page must show each with its reason. Screenshot: $LANDING_SCREENSHOT
#     (default .tmp/landing-screenshot.png).
#  2. failing: the simulator with faults turned on (flow_control answers 401, queues resets its
#     connections) and a second QStash account whose URL nothing listens on: the page must say each
#     failure in words and not be a green "Ready". Screenshot: $LANDING_FAILING_SCREENSHOT (default
#     .tmp/landing-failing-screenshot.png).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

command -v chromium >/dev/null || ensure_packages chromium
[ -f dist/main.js ] || npm run build

healthy_png=${LANDING_SCREENSHOT:-.tmp/landing-screenshot.png}
failing_png=${LANDING_FAILING_SCREENSHOT:-.tmp/landing-failing-screenshot.png}
mkdir -p "$(dirname "$healthy_png")" "$(dirname "$failing_png")"
work=$(mktemp -d)
pids=()
cleanup() {
  local pid
  for pid in "${pids[@]}"; do kill -- -"$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

chrome() {
  # No network but the page's, no profile of the user's, no GPU: the same page on every machine.
  # ?refresh=0: the page must not reload under the browser while it is read.
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" "$@" "$base/?refresh=0" 2>>"$work/chromium.log"
}

# Screenshot of $base to $1, then the DOM checked against /metrics ($2: healthy or failing).
check_page() {
  local png=$1 mode=$2 attempt
  # Tall enough for every unit of the demo, the index units at the bottom included.
  chrome --window-size=1400,"${LANDING_HEIGHT:-2700}" --screenshot="$png" >/dev/null
  [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
    { cat "$work/chromium.log"; fail "no PNG screenshot"; }
  log "screenshot ($mode): $png ($(wc -c <"$png") bytes)"
  # The units can change between two reads (the demo's fleet changes once, 45 s in): the DOM is read
  # between two reads of /metrics, and the check runs on a pair that agree.
  for attempt in 1 2 3; do
    curl -sf "$base/metrics" >"$work/before.txt"
    chrome --window-size=1400,1000 --dump-dom >"$work/dom.html"
    curl -sf "$base/metrics" >"$work/after.txt"
    if [ "$(grep '^upstash_up{' "$work/before.txt")" = "$(grep '^upstash_up{' "$work/after.txt")" ]; then break; fi
    [ "$attempt" -lt 3 ] || fail "the units kept changing while the page was read"
  done
  node --input-type=module - "$work/dom.html" "$work/after.txt" "$mode" <<'EOF'
import { readFileSync } from 'node:fs';
const [dom, metrics] = process.argv.slice(2, 4).map((file) => readFileSync(file, 'utf8'));
const mode = process.argv[4];
const problems = [];
const labels = (text) => Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
const units = [...metrics.matchAll(/^upstash_up\{([^}]*)\} (\S+)$/gm)].map((m) => ({ ...labels(m[1]), up: m[2] === '1' }));
const names = new Map([
  ...[...metrics.matchAll(/^upstash_redis_database_info\{([^}]*)\}/gm)].map((m) => labels(m[1])).map((l) => [l.database_id, l.database_name]),
  ...[...metrics.matchAll(/^upstash_(?:vector|search)_index_info\{([^}]*)\}/gm)].map((m) => labels(m[1])).map((l) => [l.index_id, l.index_name]),
]);
if (units.length === 0) problems.push('/metrics has no upstash_up series');
if (!dom.includes('<h1>Upstash exporter</h1>')) problems.push('no heading');
const summary = /class="summary">(\d+) units?:/.exec(dom);
if (Number(summary?.[1]) !== units.length) problems.push(`summary says ${summary?.[1]} units, /metrics ${units.length}`);
// The metrics link is ./<telemetry path> (a path like /a:b must not read as a URL scheme).
for (const [href, path] of [['./metrics', '/metrics'], ['healthz', '/healthz'], ['readyz', '/readyz']]) if (!dom.includes(`href="${href}"`)) problems.push(`no link to ${path}`);
const sections = dom.split('<section>');
for (const unit of units) {
  const section = sections.find((s) => s.includes(`Account <q>${unit.account}</q>`)) ?? '';
  const group = section.split('<tbody>').find((g) => g.startsWith(`<tr class="group"><th scope="rowgroup" colspan="7">${unit.source}<`)) ?? '';
  const id = unit.database_id || unit.qstash_id || unit.index_id;
  const row = group.split('<tr ').slice(1).find((r) => (id === '' ? r.includes('whole account') : r.includes(`<span class="id">${id}</span>`)));
  const what = `${unit.source}/${unit.account}/${id}`;
  if (row === undefined) problems.push(`${what}: no row`);
  else if (!row.includes(`class="state ${unit.up ? 'up' : 'down'}"`)) problems.push(`${what}: not shown ${unit.up ? 'up' : 'down'}`);
  else if (id !== '' && names.has(id) && !row.includes(`${names.get(id)}<span class="id">`)) problems.push(`${what}: no name ${names.get(id)}`);
}
// What the page must say besides: the demo's injected faults, or the failures in words.
const expected =
  mode === 'healthy'
    ? ['field rejected (wrong type upstream, skipped): dailyproduce', 'schedule failing (last run failed): scd_', 'database suspended: db-demo-suspended']
    : ['units failing</span>', 'network: connection refused', 'unauthorized (HTTP 401)', 'network: connection closed'];
for (const text of expected) if (!dom.includes(text)) problems.push(`${mode}: the page does not say "${text}"`);
if (mode === 'failing' && dom.includes('<span class="ok">Ready</span>')) problems.push('failing: a green "Ready"');
if (problems.length > 0) {
  console.error(problems.join('\n'));
  process.exit(1);
}
console.log(`landing page (${mode}): ${units.length} units shown with their outcome, ${names.size} databases and indexes by name`);
EOF
}

# Waits (up to $2 s) until the page at $base contains $1.
wait_for_page() {
  local text=$1 limit=$2 waited=0
  until curl -sf "$base/?refresh=0" | grep -qF -- "$text"; do
    [ "$waited" -lt "$limit" ] || fail "the page never said \"$text\" within $limit s"
    sleep 2
    waited=$((waited + 2))
  done
}

# 1. The demo, healthy but for what it injects on purpose.
port=$(free_port)
base="http://127.0.0.1:$port"
setsid node dist/main.js --demo --web.listen-address "127.0.0.1:$port" >"$work/demo.log" 2>&1 &
pids+=($!)
wait_ready "$base" "$work/demo.log"
# The failing schedule starts 20 s after the simulator; the fleet changes at 45 s.
wait_for_page 'schedule failing' 180
check_page "$healthy_png" healthy

# 2. Faults turned on: the simulator alone, with failing routes, and an account nothing answers.
sim_port=$(free_port)
setsid node --input-type=module - "$sim_port" "$PWD/dist/demo/simulator.js" >"$work/sim.log" 2>&1 <<'EOF' &
const { startSimulator } = await import(process.argv[3]);
const sim = await startSimulator({ port: Number(process.argv[2]) });
sim.setFault('flow_control', { kind: 'status', status: 401 });
sim.setFault('queues', { kind: 'reset' });
console.log('simulator ready');
EOF
pids+=($!)
closed_port=$(free_port)
cat >"$work/config.yml" <<EOF
qstash:
  - name: demo
    url: http://127.0.0.1:$sim_port
    token: \${DEMO_QSTASH_TOKEN}
    interval: 5s
  - name: offline
    url: http://127.0.0.1:$closed_port
    token: \${DEMO_QSTASH_TOKEN}
    interval: 5s
management:
  - name: demo
    url: http://127.0.0.1:$sim_port
    email: \${DEMO_EMAIL}
    api_key: \${DEMO_API_KEY}
    interval: 10s
EOF
port=$(free_port)
base="http://127.0.0.1:$port"
# The simulator's own credentials, as the demo uses them.
demo_env=$(node --input-type=module - "$PWD/dist/demo/simulator.js" <<'EOF'
const m = await import(process.argv[2]);
console.log(`DEMO_QSTASH_TOKEN=${m.DEMO_QSTASH_TOKEN} DEMO_EMAIL=${m.DEMO_EMAIL} DEMO_API_KEY=${m.DEMO_API_KEY}`);
EOF
)
# shellcheck disable=SC2086 # three NAME=value words
env $demo_env setsid node dist/main.js --config "$work/config.yml" --web.listen-address "127.0.0.1:$port" >"$work/failing.log" 2>&1 &
pids+=($!)
wait_ready "$base" "$work/failing.log"
wait_for_page 'network: connection refused' 60
check_page "$failing_png" failing
echo "landing-page-test: passed"
