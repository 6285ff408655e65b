import { Counter, Gauge, collectDefaultMetrics, type Registry } from 'prom-client';
import { MAX_LABEL_VALUE_LENGTH } from '../metrics/label-limit.js';
import { UPSTASH_FAILURE_REASONS } from '../upstash/errors.js';
import { HEALTH_LABELS, type UnitLabels } from '../vocabulary.js';

/**
 * Why a poll failed: Upstash's reasons, and `internal` for a fault of the exporter itself (a bug of
 * ours must not be blamed on Upstash).
 */
export const FAILURE_REASONS = [...UPSTASH_FAILURE_REASONS, 'internal'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

// prom-client's `_total` gauges break the naming rules; their values are in the unsuffixed gauges.
const DROPPED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/** The exporter's metrics about itself, recorded by the poller and the HTTP client. */
export interface SelfMetrics {
  /** Creates a source's counters at zero, so `increase()` sees its first failure. */
  declareSource(labels: UnitLabels): void;
  pollStarted(labels: UnitLabels): void;
  pollSucceeded(labels: UnitLabels, durationSeconds: number, atSeconds: number): void;
  pollFailed(labels: UnitLabels, reason: FailureReason, durationSeconds: number): void;
  pollSkipped(labels: UnitLabels): void;
  apiRequest(api: string, code: string): void;
  /** Counts one upstream field skipped alone for its wrong type. */
  fieldRejected(labels: UnitLabels, field: string): void;
  /** Counts label values of the source's latest poll that were cut to the length cap. */
  labelValuesTruncated(labels: UnitLabels, count: number): void;
  /** Removes every health series of a source that is no longer configured. */
  forgetSource(labels: UnitLabels): void;
  /** Moves on every change recorded through this interface (the exposition cache keys on it). */
  readonly version: number;
}

/** Registers the health metrics, build info and process metrics in `registry`. */
export function createSelfMetrics(
  registry: Registry,
  build: { version: string; sharding?: { shard: number; total: number } },
): SelfMetrics {
  const registers = [registry];
  const up = new Gauge({
    name: 'upstash_up',
    help: 'Whether the last poll of the source succeeded (1) or failed (0).',
    labelNames: HEALTH_LABELS,
    registers,
  });
  const lastSuccess = new Gauge({
    name: 'upstash_exporter_last_success_timestamp_seconds',
    help: 'When the source was last polled successfully (Unix time in seconds).',
    labelNames: HEALTH_LABELS,
    registers,
  });
  const duration = new Gauge({
    name: 'upstash_exporter_poll_duration_seconds',
    help: 'How long the last poll of the source took, retries included (seconds).',
    labelNames: HEALTH_LABELS,
    registers,
  });
  const polls = new Counter({
    name: 'upstash_exporter_polls_total',
    help: 'Polls of the source started (count).',
    labelNames: HEALTH_LABELS,
    registers,
  });
  const failures = new Counter({
    name: 'upstash_exporter_poll_failures_total',
    help: 'Failed polls of the source, by reason (count).',
    labelNames: [...HEALTH_LABELS, 'reason'],
    registers,
  });
  const skipped = new Counter({
    name: 'upstash_exporter_polls_skipped_total',
    help: 'Scheduled polls of the source skipped because the previous one was still running or Upstash asked us to wait (count).',
    labelNames: HEALTH_LABELS,
    registers,
  });
  const requests = new Counter({
    name: 'upstash_exporter_api_requests_total',
    help: 'HTTP requests sent to Upstash, retries included, by API and status code (count; code "error" when no status came back).',
    labelNames: ['api', 'code'],
    registers,
  });
  new Gauge({
    name: 'upstash_exporter_build_info',
    help: 'Always 1; the labels say which exporter version runs on which Node.js.',
    labelNames: ['version', 'node_version'],
    registers,
  }).set({ version: build.version, node_version: process.version }, 1);
  // Always exported, 0 and 1 when unsharded: dashboards and the sharding alert read them.
  new Gauge({
    name: 'upstash_exporter_shard_ordinal',
    help: 'Which shard this process is, 0-based (--shard).',
    registers,
  }).set(build.sharding?.shard ?? 0);
  new Gauge({
    name: 'upstash_exporter_total_shards',
    help: 'How many shards share the configuration (--total-shards).',
    registers,
  }).set(build.sharding?.total ?? 1);
  const truncated = new Counter({
    name: 'upstash_exporter_label_values_truncated_total',
    help: `Label values of polled series rewritten to a head, "~" and a hash of the whole value: cut to ${MAX_LABEL_VALUE_LENGTH} characters, or repaired (invalid UTF-16), counted once per value and poll; also the label values a cap left out: the state values of qstash_stats beyond 20, a DLQ grouping's beyond its cap (count).`,
    labelNames: HEALTH_LABELS,
    registers,
  });

  const rejected = new Counter({
    name: 'upstash_exporter_fields_rejected_total',
    help: "Upstream fields skipped alone because their value had the wrong type, by field (Upstash's name); the rest of the source still exports (count).",
    labelNames: [...HEALTH_LABELS, 'field'],
    registers,
  });
  // The fields each source has had rejected, so that forgetting the source can remove them all.
  const rejectedFields = new Map<string, Set<string>>();
  const sourceKey = (labels: UnitLabels): string => HEALTH_LABELS.map((name) => labels[name]).join('\u0000');

  collectDefaultMetrics({ register: registry });
  for (const name of DROPPED_DEFAULTS) registry.removeSingleMetric(name);

  let version = 0;
  return {
    get version() {
      return version;
    },
    declareSource(labels) {
      version++;
      polls.inc(labels, 0);
      skipped.inc(labels, 0);
      truncated.inc(labels, 0);
      for (const reason of FAILURE_REASONS) failures.inc({ ...labels, reason }, 0);
    },
    pollStarted(labels) {
      version++;
      polls.inc(labels);
    },
    pollSucceeded(labels, durationSeconds, atSeconds) {
      version++;
      up.set(labels, 1);
      duration.set(labels, durationSeconds);
      lastSuccess.set(labels, atSeconds);
    },
    pollFailed(labels, reason, durationSeconds) {
      version++;
      up.set(labels, 0);
      duration.set(labels, durationSeconds);
      failures.inc({ ...labels, reason });
    },
    pollSkipped(labels) {
      version++;
      skipped.inc(labels);
    },
    apiRequest(api, code) {
      version++;
      requests.inc({ api, code });
    },
    fieldRejected(labels, field) {
      version++;
      rejected.inc({ ...labels, field });
      const key = sourceKey(labels);
      rejectedFields.set(key, (rejectedFields.get(key) ?? new Set()).add(field));
    },
    labelValuesTruncated(labels, count) {
      if (count === 0) return;
      version++;
      truncated.inc(labels, count);
    },
    forgetSource(labels) {
      version++;
      for (const metric of [up, lastSuccess, duration, polls, skipped, truncated])
        metric.remove({ ...labels });
      for (const reason of FAILURE_REASONS) failures.remove({ ...labels, reason });
      for (const field of rejectedFields.get(sourceKey(labels)) ?? []) rejected.remove({ ...labels, field });
      rejectedFields.delete(sourceKey(labels));
    },
  };
}
