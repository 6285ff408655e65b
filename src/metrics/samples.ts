import type { FlowControlKey } from '../upstash/flow-control.js';
import { NUMBER_FIELDS, SERIES_FIELDS, type RedisStats } from '../upstash/redis-stats.js';
import type { UrlGroup } from '../upstash/url-groups.js';
import { QSTASH_METRICS, STATS_METRICS, STATS_SAMPLE_TIMESTAMP, type DataMetric } from './catalogue.js';

/** One data sample: a metric, its labels in order, and a value in base units. */
export interface Sample {
  readonly metric: DataMetric;
  readonly labels: readonly (readonly [string, string])[];
  readonly value: number;
}

const sample = (
  metric: DataMetric,
  labels: readonly (readonly [string, string])[],
  value: number,
): Sample => ({
  metric,
  labels,
  value: metric.divisor === 1 ? value : toBaseUnit(value, metric.divisor),
});

/**
 * Divides into the base unit, rounded to 15 significant digits: 0.693 ms is not exact in binary,
 * and 0.693 / 1000 prints as 0.0006929999999999999. Fifteen digits is all a double holds reliably.
 */
function toBaseUnit(value: number, divisor: number): number {
  return Number((value / divisor).toPrecision(15));
}

/**
 * The flow-control samples of one account. Above `limit` keys, the largest wait lists are kept
 * (ties broken by key, so the cut is stable from poll to poll) and the rest are counted as omitted.
 */
export function flowControlSamples(
  account: string,
  keys: readonly FlowControlKey[],
  limit: number,
): Sample[] {
  const kept =
    keys.length > limit
      ? [...keys]
          .sort(
            byLargest(
              (k) => k.waitListSize,
              (k) => k.key,
            ),
          )
          .slice(0, limit)
      : keys;
  // One label pair shared by all of an account's keys: ten thousand keys are common.
  const accountLabel = ['account', account] as const;
  const samples = kept.map((k) =>
    sample(QSTASH_METRICS.waitListSize, [accountLabel, ['flow_control_key', k.key]], k.waitListSize),
  );
  samples.push(
    sample(QSTASH_METRICS.flowControlKeys, [['account', account]], keys.length),
    sample(QSTASH_METRICS.flowControlKeysOmitted, [['account', account]], keys.length - kept.length),
  );
  return samples;
}

/** The URL group samples of one account; above `limit`, the groups with most endpoints are kept. */
export function urlGroupSamples(account: string, groups: readonly UrlGroup[], limit: number): Sample[] {
  const kept =
    groups.length > limit
      ? [...groups]
          .sort(
            byLargest(
              (g) => g.endpointCount,
              (g) => g.name,
            ),
          )
          .slice(0, limit)
      : groups;
  const samples: Sample[] = [
    sample(QSTASH_METRICS.urlGroups, [['account', account]], groups.length),
    sample(QSTASH_METRICS.urlGroupsOmitted, [['account', account]], groups.length - kept.length),
  ];
  for (const group of kept) {
    const labels = [
      ['account', account],
      ['url_group', group.name],
    ] as const;
    samples.push(
      sample(QSTASH_METRICS.urlGroupEndpoints, labels, group.endpointCount),
      sample(QSTASH_METRICS.urlGroupCreated, labels, group.createdAt),
      sample(QSTASH_METRICS.urlGroupUpdated, labels, group.updatedAt),
    );
  }
  return samples;
}

/** The samples of one database's stats, converted to base units. */
export function redisStatsSamples(account: string, databaseId: string, stats: RedisStats): Sample[] {
  const labels = [
    ['account', account],
    ['database_id', databaseId],
  ] as const;
  const samples: Sample[] = [];
  for (const field of [...SERIES_FIELDS, ...NUMBER_FIELDS]) {
    const value = stats.values[field];
    if (value !== undefined) samples.push(sample(STATS_METRICS[field], labels, value));
  }
  if (stats.sampleTimestampMs !== undefined) {
    samples.push(sample(STATS_SAMPLE_TIMESTAMP, labels, stats.sampleTimestampMs / 1000));
  }
  return samples;
}

function byLargest<T>(size: (item: T) => number, name: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => size(b) - size(a) || (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0);
}
