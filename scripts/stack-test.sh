#!/usr/bin/env bash
# The Prometheus → Alertmanager chain tests (test/stack: alerting.test.ts, and error-ratio.test.ts for a
# destination's error ratio): the built exporter against the fake Upstash, scraped by Debian's
# prometheus loading prometheus/alerts.yml, alerting to Debian's prometheus-alertmanager. Installs what it
# needs; builds the exporter first.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

if ! command -v prometheus >/dev/null || ! command -v prometheus-alertmanager >/dev/null; then
  ensure_packages prometheus prometheus-alertmanager
fi

[ -d node_modules ] || npm ci
log "npm run build"
npm run build --silent

log "vitest run --config vitest.stack.config.ts"
npx vitest run --config vitest.stack.config.ts
