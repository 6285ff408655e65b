import type { DataMetric } from '../metrics/catalogue.js';
import { DataSeries, type FamilyBlocks } from '../metrics/data-series.js';
import type { Format } from '../metrics/exposition.js';
import type { FamilyPredicate } from '../metrics/family-filter.js';
import { MAX_LABEL_VALUE_LENGTH } from '../metrics/label-limit.js';
import type { LabelPairs, Sample } from '../metrics/sample.js';
import { UPSTASH_FAILURE_REASONS } from '../upstash/errors.js';
import { HEALTH_LABELS, type UnitLabels } from '../vocabulary.js';

/**
 * Why a poll failed: Upstash's reasons, and `internal` for a fault of the exporter itself (a bug of
 * ours must not be blamed on Upstash).
 */
export const FAILURE_REASONS = [...UPSTASH_FAILURE_REASONS, 'internal'] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

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
  /** Every family, in exposition order. */
  readonly catalogue: readonly DataMetric[];
  /** The exposition of every family with samples. */
  render(format: Format, keep?: FamilyPredicate): string;
  /** The families that changed since the last call (see {@link DataSeries.takeChanges}). */
  takeChanges(): FamilyBlocks[];
}

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
const REJECTED = metric(
  'upstash_exporter_fields_rejected_total',
  "Upstream fields skipped alone because their value had the wrong type, by field (Upstash's name); the rest of the source still exports (count).",
  'counter',
);

/** The health families, in exposition order. */
const HEALTH_METRICS = [
  UP,
  LAST_SUCCESS,
  DURATION,
  POLLS,
  FAILURES,
  SKIPPED,
  REQUESTS,
  BUILD_INFO,
  SHARD_ORDINAL,
  TOTAL_SHARDS,
  TRUNCATED,
  REJECTED,
];

/** What the health series say of one unit; a series is absent until something sets it. */
interface UnitHealth {
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

// The keys of the series that are not a unit's; a unit's key (its labels joined) never starts so.
const API_REQUESTS = '\u0001api';
const BUILD = '\u0001build';

/**
 * The health metrics, build info and shard gauges. A thousand databases are some 20,000 health
 * series, and a poll lands every 10 ms: like the data series, each unit's series are rendered to
 * bytes on their own, when the unit changed and its series are next read, and joined per family
 * (metrics/data-series.ts), so reading them costs what changed since, not 20,000 series each time.
 */
export function createSelfMetrics(build: {
  version: string;
  /** `unknown` when not given, as for a build outside git. */
  revision?: string | undefined;
  sharding?: { shard: number; total: number };
}): SelfMetrics {
  const series = new DataSeries(HEALTH_METRICS);
  const units = new Map<string, UnitHealth>();
  const requests = new Map<string, { readonly labels: LabelPairs; count: number }>();
  const dirty = new Set<string>();
  const sourceKey = (labels: UnitLabels): string => HEALTH_LABELS.map((name) => labels[name]).join('\u0000');
  let version = 0;

  series.replace(BUILD, [
    {
      metric: BUILD_INFO,
      labels: [
        ['version', build.version],
        ['revision', build.revision ?? 'unknown'],
        ['node_version', process.version],
      ],
      value: 1,
    },
    { metric: SHARD_ORDINAL, labels: [], value: build.sharding?.shard ?? 0 },
    { metric: TOTAL_SHARDS, labels: [], value: build.sharding?.total ?? 1 },
  ]);

  const unit = (labels: UnitLabels): UnitHealth => {
    version++;
    const key = sourceKey(labels);
    dirty.add(key);
    let health = units.get(key);
    if (health === undefined) {
      health = {
        labels: HEALTH_LABELS.map((name) => [name, labels[name]] as const),
        failures: new Map(),
        rejected: new Map(),
      };
      units.set(key, health);
    }
    return health;
  };

  /** Renders the units and request counts that changed since the last read into the series. */
  const flush = (): void => {
    for (const key of dirty) {
      if (key === API_REQUESTS) {
        series.replace(
          key,
          [...requests.values()].map(({ labels, count }) => ({ metric: REQUESTS, labels, value: count })),
        );
        continue;
      }
      const health = units.get(key);
      if (health === undefined) series.drop(key);
      else series.replace(key, unitSamples(health));
    }
    dirty.clear();
  };

  return {
    get version() {
      return version;
    },
    catalogue: HEALTH_METRICS,
    declareSource(labels) {
      const health = unit(labels);
      health.polls ??= 0;
      health.skipped ??= 0;
      health.truncated ??= 0;
      for (const reason of FAILURE_REASONS) health.failures.set(reason, health.failures.get(reason) ?? 0);
    },
    pollStarted(labels) {
      const health = unit(labels);
      health.polls = (health.polls ?? 0) + 1;
    },
    pollSucceeded(labels, durationSeconds, atSeconds) {
      const health = unit(labels);
      health.up = 1;
      health.duration = durationSeconds;
      health.lastSuccess = atSeconds;
    },
    pollFailed(labels, reason, durationSeconds) {
      const health = unit(labels);
      health.up = 0;
      health.duration = durationSeconds;
      health.failures.set(reason, (health.failures.get(reason) ?? 0) + 1);
    },
    pollSkipped(labels) {
      const health = unit(labels);
      health.skipped = (health.skipped ?? 0) + 1;
    },
    apiRequest(api, code) {
      version++;
      dirty.add(API_REQUESTS);
      const key = `${api}\u0000${code}`;
      const counted = requests.get(key);
      if (counted === undefined) {
        requests.set(key, {
          labels: [
            ['api', api],
            ['code', code],
          ],
          count: 1,
        });
      } else {
        counted.count++;
      }
    },
    fieldRejected(labels, field) {
      const health = unit(labels);
      health.rejected.set(field, (health.rejected.get(field) ?? 0) + 1);
    },
    labelValuesTruncated(labels, count) {
      if (count === 0) return;
      const health = unit(labels);
      health.truncated = (health.truncated ?? 0) + count;
    },
    forgetSource(labels) {
      version++;
      const key = sourceKey(labels);
      units.delete(key);
      dirty.add(key);
    },
    render(format, keep) {
      flush();
      return series.render(format, keep);
    },
    takeChanges() {
      flush();
      return series.takeChanges();
    },
  };
}

/** A unit's health series, family by family. */
function unitSamples(health: UnitHealth): Sample[] {
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
