#!/usr/bin/env bash
# Static checks of the Prometheus and Alertmanager files with the real tools:
#   promtool check rules, promtool test rules (unit tests in prometheus/alerts.test.yml), promtool check
#   rules on a copy from scripts/alert-rules.mjs with another job selector,
#   promtool check config prometheus/prometheus.yml, amtool check-config alertmanager/alertmanager.yml.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

if ! command -v promtool >/dev/null || ! command -v amtool >/dev/null; then
  ensure_packages prometheus prometheus-alertmanager
fi

log "promtool check rules prometheus/alerts.yml"
promtool check rules prometheus/alerts.yml

log "promtool test rules prometheus/alerts.test.yml"
(cd prometheus && promtool test rules alerts.test.yml)

# The copy scripts/alert-rules.mjs writes for another job selector and runbook base is a rule file too.
generated="$(mktemp)"
trap 'rm -f "$generated"' EXIT
log "promtool check rules on scripts/alert-rules.mjs --job-selector 'job=\"upstash-prod\", namespace=\"ops\"'"
node scripts/alert-rules.mjs --job-selector 'job="upstash-prod", namespace="ops"' \
  --runbook-base-url https://github.example/acme/upstash-exporter/blob/main >"$generated"
promtool check rules "$generated"
# …and so is the copy without a runbook base, which leaves the runbook_url lines out.
log "promtool check rules on scripts/alert-rules.mjs (no --runbook-base-url)"
node scripts/alert-rules.mjs >"$generated"
promtool check rules "$generated"

log "promtool check config prometheus/prometheus.yml"
promtool check config prometheus/prometheus.yml

log "amtool check-config alertmanager/alertmanager.yml"
amtool check-config alertmanager/alertmanager.yml

echo "check-rules: all checks passed"
