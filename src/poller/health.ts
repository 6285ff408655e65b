import type { DataMetric } from '../metrics/catalogue.js';
import { MAX_LABEL_VALUE_LENGTH } from '../metrics/label-limit.js';
import type { LabelPairs, Sample } from '../metrics/sample.js';
import type { Api } from '../upstash/client.js';
import { UPSTASH_FAILURE_REASONS } from '../upstash/errors.js';
import { HEALTH_LABELS, SOURCE_NAMES, type UnitLabels } from '../vocabulary.js';

// The health section of /metrics: its families, and what its series say of each unit, as plain
// data. The poll worker counts (self-metrics.ts) and hands the records that changed over; the serving
// thread keeps them and renders them (worker/store.ts), so that they outlive the worker: a restarted
// worker continues from them, and a death is counted on them.

/**
 * Why a poll failed: Upstash's reasons, `internal` for a fault of the exporter itself (a bug of
 * ours must not be blamed on Upstash), and `worker_died` for a poll in flight when the poll worker
 * died (the serving thread counts it).
 */
export const FAILURE_REASONS = [...UPSTASH_FAILURE_REASONS, 'internal', 'worker_died'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

const metric = (name: string, help: string, type: 'gauge' | 'counter' = 'gauge'): DataMetric => ({
  name,
  help,
  divisor: 1,
  type,
});

const UP = metric('upstash_up', 'Whether the last poll of the source succeeded (1) or failed (0).');
const LAST_SUCCESS = metric(
  'upstash_exporter_last_success_timestamp_seconds',
  'When the source was last polled successfully (Unix time in seconds).',
);
const DURATION = metric(
  'upstash_exporter_poll_duration_seconds',
  'How long the last poll of the source took, retries included (seconds).',
);
const POLLS = metric('upstash_exporter_polls_total', 'Polls of the source started (count).', 'counter');
const FAILURES = metric(
  'upstash_exporter_poll_failures_total',
  'Failed polls of the source, by reason (count).',
  'counter',
);
const SKIPPED = metric(
  'upstash_exporter_polls_skipped_total',
  'Scheduled polls of the source skipped because the previous one was still running or Upstash asked us to wait (count).',
  'counter',
);
const REQUESTS = metric(
  'upstash_exporter_api_requests_total',
  'HTTP requests sent to Upstash, retries included, by API and status code (count; code "error" when no status came back).',
  'counter',
);
const BURST_WAITS = metric(
  'upstash_exporter_burst_waits_total',
  "Requests to Upstash that waited for their credential's burst limit to reset (an answer said Burst-RateLimit-Remaining: 0), by API (count).",
  'counter',
);
const BUILD_INFO = metric(
  'upstash_exporter_build_info',
  'Always 1; the labels say which exporter version, built from which git revision, runs on which Node.js.',
);
// Always exported, 0 and 1 when unsharded: dashboards and the sharding alert read them.
const SHARD_ORDINAL = metric(
  'upstash_exporter_shard_ordinal',
  'Which shard this process is, 0-based (--shard).',
);
const TOTAL_SHARDS = metric(
  'upstash_exporter_total_shards',
  'How many shards share the configuration (--total-shards).',
);
const TRUNCATED = metric(
  'upstash_exporter_label_values_truncated_total',
  `Label values of polled series rewritten to a head, "~" and a hash of the whole value: cut to ${MAX_LABEL_VALUE_LENGTH} characters, or repaired (invalid UTF-16), counted once per value and poll; also the label values a cap left out: the state values of qstash_stats beyond 20, a DLQ grouping's beyond its cap (count).`,
  'counter',
);
const RESTARTS = metric(
  'upstash_exporter_poll_worker_restarts_total',
  'Deaths of the poll worker thread, each followed by a restart (count).',
  'counter',
);
const REJECTED = metric(
  'upstash_exporter_fields_rejected_total',
  "Upstream fields skipped alone because their value had the wrong type, by field (Upstash's name); the rest of the source still exports (count).",
  'counter',
);

/** The health families, in exposition order. */
export const HEALTH_METRICS: readonly DataMetric[] = [
  UP,
  LAST_SUCCESS,
  DURATION,
  POLLS,
  FAILURES,
  SKIPPED,
  REQUESTS,
  BURST_WAITS,
  BUILD_INFO,
  SHARD_ORDINAL,
  TOTAL_SHARDS,
  TRUNCATED,
  REJECTED,
  RESTARTS,
];

/** What the health series say of one unit; a series is absent until something sets it. */
export interface HealthRecord {
  readonly labels: LabelPairs;
  up?: number;
  lastSuccess?: number;
  duration?: number;
  polls?: number;
  skipped?: number;
  truncated?: number;
  readonly failures: Map<FailureReason, number>;
  readonly rejected: Map<string, number>;
}

/** What changed of the health series since the last publication. */
export interface HealthChanges {
  /** By unit key ({@link healthKey}): its record now, or undefined when the unit is gone. */
  readonly units: readonly (readonly [key: string, record: HealthRecord | undefined])[];
  /** Every API request count, when one moved. */
  readonly requests: ReadonlyMap<string, number> | undefined;
  /** Every API's burst-limit waits, when one moved. */
  readonly burstWaits: ReadonlyMap<Api, number> | undefined;
}

/** What a restarted poll worker continues from: the health records the serving thread holds. */
export interface HealthState {
  /** By unit key ({@link healthKey}). */
  readonly units: ReadonlyMap<string, HealthRecord>;
  /** Every API request count. */
  readonly requests: ReadonlyMap<string, number>;
  /** Every API's burst-limit waits. */
  readonly burstWaits: ReadonlyMap<Api, number>;
}

/** A unit's key among the health records: its health labels. */
export function healthKey(labels: UnitLabels): string {
  return HEALTH_LABELS.map((name) => labels[name]).join('\u0000');
}

/** A new unit's record, every series absent. */
export function newRecord(labels: UnitLabels): HealthRecord {
  return {
    labels: HEALTH_LABELS.map((name) => [name, labels[name]] as const),
    failures: new Map(),
    rejected: new Map(),
  };
}

/** A unit's health series, family by family. */
export function unitSamples(health: HealthRecord): Sample[] {
  const { labels } = health;
  const samples: Sample[] = [];
  const add = (metric: DataMetric, value: number | undefined, pairs: LabelPairs = labels): void => {
    if (value !== undefined) samples.push({ metric, labels: pairs, value });
  };
  add(UP, health.up);
  add(LAST_SUCCESS, health.lastSuccess);
  add(DURATION, health.duration);
  add(POLLS, health.polls);
  for (const [reason, count] of health.failures) add(FAILURES, count, [...labels, ['reason', reason]]);
  add(SKIPPED, health.skipped);
  add(TRUNCATED, health.truncated);
  for (const [field, count] of health.rejected) add(REJECTED, count, [...labels, ['field', field]]);
  return samples;
}

/** The API request counts' series. */
export function requestSamples(counts: ReadonlyMap<string, number>): Sample[] {
  return [...counts].map(([key, count]) => {
    const [api = '', code = ''] = key.split('\u0000');
    return {
      metric: REQUESTS,
      labels: [
        ['api', api],
        ['code', code],
      ],
      value: count,
    };
  });
}

/**
 * The burst-limit waits' series: one per API, 0 until its first wait (docs/metrics.md, The exporter
 * itself), so that `increase()` sees the first.
 */
export function burstWaitSamples(counts: ReadonlyMap<Api, number>): Sample[] {
  return (Object.keys(SOURCE_NAMES) as Api[]).map((api) => ({
    metric: BURST_WAITS,
    labels: [['api', api]],
    value: counts.get(api) ?? 0,
  }));
}

/** Build info and the shard gauges: what the process is, not what it polled. */
export function buildSamples(build: {
  version: string;
  /** As src/version.ts reads it: `unknown` there for a build outside git. */
  revision: string;
  sharding: { shard: number; total: number };
}): Sample[] {
  return [
    {
      metric: BUILD_INFO,
      labels: [
        ['version', build.version],
        ['revision', build.revision],
        ['node_version', process.version],
      ],
      value: 1,
    },
    { metric: SHARD_ORDINAL, labels: [], value: build.sharding.shard },
    { metric: TOTAL_SHARDS, labels: [], value: build.sharding.total },
  ];
}

/** The poll worker's deaths. */
export function restartSamples(restarts: number): Sample[] {
  return [{ metric: RESTARTS, labels: [], value: restarts }];
}
