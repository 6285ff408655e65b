import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { keepLargest, sample, type Sample } from '../metrics/sample.js';
import {
  QSTASH_DAILY_REQUESTS_EXTRA,
  QSTASH_NUMBER_FIELDS,
  QSTASH_SERIES_FIELDS,
  QSTASH_STATE_FIELDS,
  QSTASH_SUM_FIELDS,
  fetchQstashStats,
  type QstashStateField,
  type QstashStats,
  type QstashStatsField,
} from '../upstash/qstash-stats.js';
import { LATEST_POINT, polled, type SourceKind } from './source.js';

const POLLED = polled('qstash_stats');
const LATEST = polled('qstash_stats', LATEST_POINT);

/** QStash stats metrics by Upstash field, in the order they are exposed. */
const METRICS: Record<QstashStatsField, DataMetric> = {
  dlq_message_count: gauge(
    'upstash_qstash_dlq_messages',
    `Messages in the dead-letter queue (count). ${POLLED}`,
  ),
  total_monthly_billing: gauge(
    'upstash_qstash_monthly_billing_dollars',
    `Cost this month so far (US dollars). ${POLLED}`,
  ),
  daily_requests: gauge('upstash_qstash_daily_requests', `Requests on the latest day (count). ${LATEST}`),
  daily_billings: gauge(
    'upstash_qstash_daily_billing_dollars',
    `Cost of the latest day (US dollars). ${LATEST}`,
  ),
  daily_bandwidths: gauge(
    'upstash_qstash_daily_bandwidth_bytes',
    `Bandwidth used on the latest day (bytes). ${LATEST}`,
  ),
  daily_used: gauge(
    'upstash_qstash_requests_last_hour',
    `Requests over the last hour, the sum of its one-minute points (count). ${POLLED}`,
  ),
  daily_used_workflow: gauge(
    'upstash_qstash_workflow_requests_last_hour',
    `Workflow requests over the last hour, the sum of its one-minute points (count). ${POLLED}`,
  ),
  workflow_run: gauge(
    'upstash_qstash_daily_workflow_runs',
    `Workflow runs on the latest day (count). ${LATEST}`,
  ),
  workflow_message: gauge(
    'upstash_qstash_daily_workflow_messages',
    `Workflow messages on the latest day (count). ${LATEST}`,
  ),
};

/** The outcome metrics by Upstash field: one series per state id. */
const STATE_METRICS: Record<QstashStateField, DataMetric> = {
  daily_qstash_messages: gauge(
    'upstash_qstash_messages_last_hour',
    `Messages over the last hour by outcome (state as Upstash names it: delivered, failed, retry, error, canceled, …), the sum of its one-minute points (count). ${POLLED}`,
  ),
  daily_workflow_messages: gauge(
    'upstash_qstash_workflow_messages_last_hour',
    `Workflow messages over the last hour by outcome (state as Upstash names it), the sum of its one-minute points (count). ${POLLED}`,
  ),
};

/** States exported per instance and metric; above it the largest sums are kept. */
export const MAX_STATES = 20;

/**
 * The samples of one QStash instance's stats, and how many state values were left out by
 * {@link MAX_STATES}.
 */
export function qstashStatsSamples(
  account: string,
  instanceId: string,
  stats: QstashStats,
): { samples: Sample[]; dropped: number } {
  const labels = [
    ['account', account],
    ['qstash_id', instanceId],
  ] as const;
  const samples: Sample[] = [];
  for (const field of [
    ...QSTASH_NUMBER_FIELDS,
    ...QSTASH_SERIES_FIELDS,
    ...QSTASH_SUM_FIELDS,
    ...QSTASH_DAILY_REQUESTS_EXTRA,
  ]) {
    const value = stats.values[field];
    if (value !== undefined) samples.push(sample(METRICS[field], labels, value));
  }
  let dropped = 0;
  for (const field of QSTASH_STATE_FIELDS) {
    const states = [...(stats.states[field] ?? [])];
    const kept = keepLargest(
      states,
      MAX_STATES,
      ([, sum]) => sum,
      ([state]) => state,
    );
    dropped += states.length - kept.length;
    for (const [state, sum] of kept)
      samples.push(sample(STATE_METRICS[field], [...labels, ['state', state]], sum));
  }
  return { samples, dropped };
}

/**
 * Management API stats of one QStash instance (DLQ, requests, billing, outcomes of the last hour),
 * once per listed instance.
 */
export const qstashStats: SourceKind<'qstash_stats'> = {
  name: 'qstash_stats',
  per: 'qstash_instance',
  metrics: [...Object.values(METRICS), ...Object.values(STATE_METRICS)],
  async poll({ client, account, unit, signal, deadline }) {
    const stats = await fetchQstashStats(client, { ...account, instanceId: unit, signal, deadline });
    const { samples, dropped } = qstashStatsSamples(account.name, unit, stats);
    return {
      samples,
      ...(stats.rejected.length > 0 && { rejectedFields: stats.rejected }),
      ...(dropped > 0 && { labelValuesDropped: dropped }),
    };
  },
};
