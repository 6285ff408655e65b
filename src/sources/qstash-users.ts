import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { sample, type Sample } from '../metrics/sample.js';
import {
  QSTASH_FEATURE_FIELDS,
  fetchQstashUsers,
  type QstashFeatureField,
  type QstashInstance,
  type QstashLimitField,
} from '../upstash/qstash-users.js';
import { polled, type SourceKind } from './source.js';

const POLLED = polled('qstash_users');

const INFO = gauge(
  'upstash_qstash_instance_info',
  `A QStash instance the management API lists, with its region, plan type and state (always 1). ${POLLED}`,
);

/** The plan limit metrics by Upstash field, in the order they are exposed. */
const LIMIT_METRICS: Record<QstashLimitField, DataMetric> = {
  max_requests_per_day: gauge(
    'upstash_qstash_max_requests_per_day',
    `Requests per day the plan allows, the soft limit (count). ${POLLED}`,
  ),
  max_requests_per_second: gauge(
    'upstash_qstash_max_requests_per_second',
    `Requests per second the plan allows (requests per second). ${POLLED}`,
  ),
  max_dlq_size: gauge(
    'upstash_qstash_max_dlq_messages',
    `Messages the dead-letter queue may hold (count). ${POLLED}`,
  ),
  max_topics: gauge('upstash_qstash_max_url_groups', `URL groups the plan allows (count). ${POLLED}`),
  max_queues: gauge('upstash_qstash_max_queues', `Queues the plan allows (count). ${POLLED}`),
  max_schedules: gauge('upstash_qstash_max_schedules', `Schedules the plan allows (count). ${POLLED}`),
  max_global_parallelism: gauge(
    'upstash_qstash_max_global_parallelism',
    `Messages the plan allows to run at once across all endpoints (count). ${POLLED}`,
  ),
  max_message_size: gauge(
    'upstash_qstash_max_message_size_bytes',
    `Largest message the plan allows (bytes). ${POLLED}`,
  ),
  budget: gauge(
    'upstash_qstash_budget_dollars',
    `Monthly spending budget, 0 for no limit (US dollars). ${POLLED}`,
  ),
  max_requests_per_day_hard: gauge(
    'upstash_qstash_max_requests_per_day_hard',
    `Requests per day the plan allows, the hard limit beyond which requests are refused (count). ${POLLED}`,
  ),
  max_bandwidth_per_second: gauge(
    'upstash_qstash_max_bandwidth_bytes_per_second',
    `Bandwidth the plan allows (bytes per second). ${POLLED}`,
  ),
  max_parallelism: gauge(
    'upstash_qstash_max_parallelism_per_endpoint',
    `Messages the plan allows to run at once per endpoint (count). ${POLLED}`,
  ),
  max_endpoints_per_topic: gauge(
    'upstash_qstash_max_endpoints_per_url_group',
    `Endpoints the plan allows in one URL group (count). ${POLLED}`,
  ),
  max_retries: gauge(
    'upstash_qstash_max_retries',
    `Delivery retries the plan allows per message (count). ${POLLED}`,
  ),
  max_dlq_retention_time_milis: gauge(
    'upstash_qstash_dlq_retention_seconds',
    `How long a message stays in the dead-letter queue (seconds). ${POLLED}`,
    1000,
  ),
  max_delay: gauge(
    'upstash_qstash_max_delay_seconds',
    `Longest delay the plan allows for a message (seconds). ${POLLED}`,
  ),
  timeout: gauge(
    'upstash_qstash_max_request_timeout_seconds',
    `Longest the plan lets a delivery request take (seconds). ${POLLED}`,
  ),
};

const FEATURE = gauge(
  'upstash_qstash_feature_enabled',
  `Whether a setting of the instance is on (1) or off (0): prod_pack, native_prometheus (Upstash's own Prometheus integration), active. ${POLLED}`,
);

/** The `feature` label of each setting. */
const FEATURES: Record<QstashFeatureField, string> = {
  prod_pack_enabled: 'prod_pack',
  prometheus_enabled: 'native_prometheus',
  active: 'active',
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
    for (const field of QSTASH_FEATURE_FIELDS) {
      const on = instance.features[field];
      if (on !== undefined)
        samples.push(sample(FEATURE, [...labels, ['feature', FEATURES[field]]], on ? 1 : 0));
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
  per: 'account',
  lists: 'qstash_instance',
  metrics: [INFO, ...Object.values(LIMIT_METRICS), FEATURE],
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
