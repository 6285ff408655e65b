#!/usr/bin/env bash
# Starts `npm run demo`, waits until every source has been polled, and runs `promtool check metrics`
# on its /metrics (text format): any finding fails. Also checks that every metric name of the
# contract is there, those of CONTRACT-v0.3.md and v0.4 delivered so far, and every name of
# CONTRACT-v0.5.md and CONTRACT-v0.6.md but those it lists as not yet served; and that the OpenMetrics
# answer carries exemplars (the text format none).
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

command -v promtool >/dev/null || ensure_packages prometheus
# The names come from the contract beside the checkout: without it the check would have nothing to hold
# the demo to (and the pipelines below would end the script without a word).
for contract in ../shared/CONTRACT.md ../shared/CONTRACT-v0.3.md ../shared/CONTRACT-v0.5.md \
  ../shared/CONTRACT-v0.6.md; do
  [ -f "$contract" ] || fail "$contract not found: this check reads the contract's metric names from it"
done
[ -f dist/main.js ] || npm run build

port=$(free_port)
out=$(mktemp)
setsid node dist/main.js --demo --web.listen-address "127.0.0.1:$port" >"$out" 2>&1 &
pid=$!
trap 'kill -- -"$pid" 2>/dev/null || true; rm -f "$out"' EXIT

wait_ready "http://127.0.0.1:$port" "$out"

# The event sources' names (docs/metrics.md, Delivery errors and workflow runs; the histogram by its
# series). Their counters start at the exporter's start: the simulator's opening events (src/demo/opening.ts)
# are dated at the exporter's first read, so its first poll counts them and they are there once it is ready.
v04_delivered=(
  upstash_qstash_delivery_errors_total upstash_qstash_deliveries_failed_total
  upstash_qstash_logs_scan_complete upstash_qstash_logs_unread_seconds_total
  upstash_qstash_logs_watermark_timestamp_seconds
  upstash_workflow_runs_finished_total upstash_workflow_run_duration_seconds_bucket
  upstash_workflow_run_duration_seconds_sum upstash_workflow_run_duration_seconds_count
  upstash_workflow_runs_in_progress upstash_workflow_oldest_run_start_timestamp_seconds
  upstash_workflow_runs_scan_complete upstash_workflow_runs_unread_seconds_total
  upstash_workflow_runs_watermark_timestamp_seconds
)
# docs/metrics.md, The account's safety. The audit counter also starts at the start: the opening's audit
# event is counted by the first poll too.
v04_delivered+=(
  upstash_audit_events_total upstash_audit_last_event_timestamp_seconds upstash_audit_log_scan_complete
  upstash_audit_log_unread_seconds_total upstash_audit_log_watermark_timestamp_seconds
  upstash_team_members upstash_qstash_egress_ip_ranges upstash_qstash_egress_ip_range_info
)
# Every name of CONTRACT-v0.5.md (section 11), read from it, but those not served yet. Each issue that
# lands one of these removes it from the list: it is what stands between the demo and the whole section.
v05_not_yet_served=(
)
v05_served=()
for name in $(grep -o '`upstash_[a-z0-9_]*`' ../shared/CONTRACT-v0.5.md | tr -d '`' | sort -u); do
  [[ " ${v05_not_yet_served[*]} " == *" $name "* ]] || v05_served+=("$name")
done
# Named in the contract with its labels (`…_total{api}`), which the pattern above does not read.
v05_served+=(upstash_exporter_burst_waits_total)
# Every name of CONTRACT-v0.6.md (section 12), read from it, but those not served yet: the demo's
# configuration lists two labels (src/demo/demo-config.ts), so the `…_label_…` families are there.
v06_not_yet_served=(
)
for name in $(grep -o '`upstash_[a-z0-9_]*`' ../shared/CONTRACT-v0.6.md | tr -d '`' | sort -u); do
  [[ " ${v06_not_yet_served[*]} " == *" $name "* ]] || v05_served+=("$name")
done
body=''
for _ in $(seq 1 60); do
  body=$(curl -sf "http://127.0.0.1:$port/metrics")
  absent=0
  for name in "${v04_delivered[@]}" "${v05_served[@]}"; do grep -q "^$name[{ ]" <<<"$body" || absent=1; done
  [ "$absent" -eq 0 ] && break
  sleep 2
done

findings=$(printf '%s\n' "$body" | promtool check metrics 2>&1) || true
if [ -n "$findings" ]; then
  printf '%s\n' "$findings"
  fail "promtool check metrics reported findings on the demo's output"
fi
log "promtool check metrics: no findings ($(printf '%s\n' "$body" | grep -vc '^#') samples)"

# The Redis settings of the listing, backups, and the Vector and Search indexes (docs/metrics.md, Redis
# settings and backups, and Vector and Search indexes).
v03_delivered=(
  upstash_redis_feature_enabled upstash_redis_replicas upstash_redis_read_regions
  upstash_redis_backups upstash_redis_backup_last_completed_timestamp_seconds
  upstash_redis_backup_last_failed_timestamp_seconds
)
for product in vector search; do
  for suffix in indexes indexes_omitted index_info max_vectors max_daily_queries max_daily_updates \
    max_monthly_bandwidth_bytes max_queries_per_second max_writes_per_second vectors pending_vectors \
    daily_queries daily_updates monthly_queries monthly_updates monthly_bandwidth_bytes storage_bytes \
    monthly_cost_dollars query_latency_mean query_latency_p99 update_latency_mean update_latency_p99; do
    v03_delivered+=("upstash_${product}_${suffix}")
  done
done

# Every metric name of the contract is served by the demo (the `_omitted` counts at zero).
missing=()
for name in $(grep -o '`upstash_[a-z0-9_]*`' ../shared/CONTRACT.md | tr -d '`' | sort -u) "${v03_delivered[@]}"; do
  grep -q "^$name[{ ]" <<<"$body" || missing+=("$name")
done
# And the QStash names of CONTRACT-v0.3.md (qstash_stats and qstash_users figures, the DLQs), the DLQ
# families it writes with `…`, by name.
v03_qstash=$(grep -o '`upstash_qstash_[a-z0-9_]*`' ../shared/CONTRACT-v0.3.md | tr -d '`' | sort -u)
v03_dlq="upstash_qstash_dlq_scanned_messages upstash_qstash_dlq_scan_complete
  upstash_qstash_dlq_oldest_message_timestamp_seconds upstash_qstash_dlq_messages_by_queue
  upstash_qstash_dlq_messages_by_url_group upstash_qstash_dlq_messages_by_response_status
  upstash_qstash_workflow_dlq_scanned_messages upstash_qstash_workflow_dlq_scan_complete
  upstash_qstash_workflow_dlq_oldest_message_timestamp_seconds
  upstash_qstash_workflow_dlq_messages_by_response_status"
for name in $v03_qstash $v03_dlq "${v04_delivered[@]}" "${v05_served[@]}"; do
  grep -q "^$name[{ ]" <<<"$body" || missing+=("$name")
done
[ "${#missing[@]}" -eq 0 ] || fail "the demo does not serve: ${missing[*]}"

# Exemplars (docs/metrics.md, Exemplars): in the OpenMetrics answer on the delivery errors and the
# finished runs, which the opening's events gave; none in the text format.
grep -q ' # {' <<<"$body" && fail "the text format carries an exemplar"
openmetrics=$(curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' "http://127.0.0.1:$port/metrics")
for want in '^upstash_qstash_delivery_errors_total{.* # {message_id="' \
  '^upstash_workflow_runs_finished_total{.* # {workflow_run_id="' \
  '^upstash_workflow_run_duration_seconds_bucket{.* # {workflow_run_id="' \
  '^upstash_workflow_failure_callbacks_total{.* # {workflow_run_id="'; do
  grep -q "$want" <<<"$openmetrics" || fail "the OpenMetrics answer has no line matching: $want"
done
echo "check-demo-metrics: passed"
