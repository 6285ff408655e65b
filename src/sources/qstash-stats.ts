import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import {
  QSTASH_NUMBER_FIELDS,
  QSTASH_SERIES_FIELDS,
  fetchQstashStats,
  type QstashStats,
  type QstashStatsField,
} from '../upstash/qstash-stats.js';
import { POLLED_MANAGEMENT, POLLED_STATS, type SourceKind } from './source.js';

/** QStash stats metrics by Upstash field, in the order they are exposed. */
const METRICS: Record<QstashStatsField, DataMetric> = {
  dlq_message_count: gauge(
    'upstash_qstash_dlq_messages',
    `Messages in the dead-letter queue (count). ${POLLED_MANAGEMENT}`,
  ),
  total_monthly_billing: gauge(
    'upstash_qstash_monthly_billing_dollars',
    `Cost this month so far (US dollars). ${POLLED_MANAGEMENT}`,
  ),
  daily_requests: gauge(
    'upstash_qstash_daily_requests',
    `Requests on the latest day (count). ${POLLED_STATS}`,
  ),
  daily_billings: gauge(
    'upstash_qstash_daily_billing_dollars',
    `Cost of the latest day (US dollars). ${POLLED_STATS}`,
  ),
  daily_bandwidths: gauge(
    'upstash_qstash_daily_bandwidth_bytes',
    `Bandwidth used on the latest day (bytes). ${POLLED_STATS}`,
  ),
};

/** The samples of one QStash instance's stats. */
export function qstashStatsSamples(account: string, instanceId: string, stats: QstashStats): Sample[] {
  const labels = [
    ['account', account],
    ['qstash_id', instanceId],
  ] as const;
  const samples: Sample[] = [];
  for (const field of [...QSTASH_NUMBER_FIELDS, ...QSTASH_SERIES_FIELDS]) {
    const value = stats.values[field];
    if (value !== undefined) samples.push(sample(METRICS[field], labels, value));
  }
  return samples;
}

/** Management API stats of one QStash instance (DLQ, requests, billing), once per listed instance. */
export const qstashStats: SourceKind<'qstash_stats'> = {
  name: 'qstash_stats',
  api: 'management',
  per: 'qstash_instance',
  metrics: Object.values(METRICS),
  async poll({ client, account, unit, signal, deadline }) {
    const stats = await fetchQstashStats(client, { ...account, instanceId: unit, signal, deadline });
    return {
      samples: qstashStatsSamples(account.name, unit, stats),
      ...(stats.rejected.length > 0 && { rejectedFields: stats.rejected }),
    };
  },
};
