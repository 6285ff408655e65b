import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import { fetchQstashUsers, type QstashInstance, type QstashLimitField } from '../upstash/qstash-users.js';
import { POLLED_MANAGEMENT, type SourceKind } from './source.js';

const INFO = gauge(
  'upstash_qstash_instance_info',
  `A QStash instance the management API lists, with its region, plan type and state (always 1). ${POLLED_MANAGEMENT}`,
);

/** The plan limit metrics by Upstash field, in the order they are exposed. */
const LIMIT_METRICS: Record<QstashLimitField, DataMetric> = {
  max_requests_per_day: gauge(
    'upstash_qstash_max_requests_per_day',
    `Requests per day the plan allows, the soft limit (count). ${POLLED_MANAGEMENT}`,
  ),
  max_requests_per_second: gauge(
    'upstash_qstash_max_requests_per_second',
    `Requests per second the plan allows (requests per second). ${POLLED_MANAGEMENT}`,
  ),
  max_dlq_size: gauge(
    'upstash_qstash_max_dlq_messages',
    `Messages the dead-letter queue may hold (count). ${POLLED_MANAGEMENT}`,
  ),
  max_topics: gauge(
    'upstash_qstash_max_url_groups',
    `URL groups the plan allows (count). ${POLLED_MANAGEMENT}`,
  ),
  max_queues: gauge('upstash_qstash_max_queues', `Queues the plan allows (count). ${POLLED_MANAGEMENT}`),
  max_schedules: gauge(
    'upstash_qstash_max_schedules',
    `Schedules the plan allows (count). ${POLLED_MANAGEMENT}`,
  ),
  max_global_parallelism: gauge(
    'upstash_qstash_max_global_parallelism',
    `Messages the plan allows to run at once across all endpoints (count). ${POLLED_MANAGEMENT}`,
  ),
  max_message_size: gauge(
    'upstash_qstash_max_message_size_bytes',
    `Largest message the plan allows (bytes). ${POLLED_MANAGEMENT}`,
  ),
  budget: gauge(
    'upstash_qstash_budget_dollars',
    `Monthly spending budget, 0 for no limit (US dollars). ${POLLED_MANAGEMENT}`,
  ),
};

/** The samples of an account's QStash instance listing: one info series and the limits of each. */
export function qstashUserSamples(account: string, instances: readonly QstashInstance[]): Sample[] {
  const samples: Sample[] = [];
  for (const instance of instances) {
    const labels = [
      ['account', account],
      ['qstash_id', instance.id],
    ] as const;
    samples.push(
      sample(
        INFO,
        [...labels, ['region', instance.region], ['type', instance.type], ['state', instance.state]],
        1,
      ),
    );
    for (const [field, metric] of Object.entries(LIMIT_METRICS) as [QstashLimitField, DataMetric][]) {
      const value = instance.limits[field];
      if (value !== undefined) samples.push(sample(metric, labels, value));
    }
  }
  return samples;
}

/**
 * The management API's QStash instance listing, once per account: the instances and their plan
 * limits, and the IDs `qstash_stats` polls. The listing's tokens are dropped at parsing.
 */
export const qstashUsers: SourceKind<'qstash_users'> = {
  name: 'qstash_users',
  api: 'management',
  per: 'account',
  lists: 'qstash_instance',
  metrics: [INFO, ...Object.values(LIMIT_METRICS)],
  async poll({ client, account, signal, deadline }) {
    const { entries: instances, rejected } = await fetchQstashUsers(client, { ...account, signal, deadline });
    return {
      samples: qstashUserSamples(account.name, instances),
      rejectedFields: rejected,
      // An instance has no name of its own: its region tells the two of an account apart.
      discovered: {
        unit: 'qstash_instance',
        ids: instances.map((instance) => instance.id),
        names: new Map(instances.map((instance) => [instance.id, instance.region])),
      },
    };
  },
};
