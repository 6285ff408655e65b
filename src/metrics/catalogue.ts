import type { StatsField } from '../upstash/redis-stats.js';

/** A data metric: what Prometheus sees in `# HELP`, and how to convert the upstream number. */
export interface DataMetric {
  readonly name: string;
  readonly help: string;
  /** Divisor from the Upstash unit to the Prometheus base unit (ms → s is 1000). */
  readonly divisor: number;
}

const POLLED_QSTASH = 'Polled every interval from QStash, not at scrape time.';
const POLLED_MANAGEMENT = 'Polled every interval from the Upstash management API, not at scrape time.';
const POLLED_STATS =
  'Latest point, polled every interval from the Upstash management API, not at scrape time.';

const gauge = (name: string, help: string, divisor = 1): DataMetric => ({ name, help, divisor });

/** QStash metrics, in the order they are exposed. */
export const QSTASH_METRICS = {
  waitListSize: gauge(
    'upstash_qstash_flow_control_wait_list_size',
    `Messages waiting in the wait list of a flow-control key (count). ${POLLED_QSTASH}`,
  ),
  flowControlKeys: gauge(
    'upstash_qstash_flow_control_keys',
    `Flow-control keys upstream, including any omitted by max_flow_control_keys (count). ${POLLED_QSTASH}`,
  ),
  flowControlKeysOmitted: gauge(
    'upstash_qstash_flow_control_keys_omitted',
    `Flow-control keys not exported because of max_flow_control_keys; the largest wait lists are kept (count). ${POLLED_QSTASH}`,
  ),
  urlGroups: gauge(
    'upstash_qstash_url_groups',
    `URL groups upstream, including any omitted by max_url_groups (count). ${POLLED_QSTASH}`,
  ),
  urlGroupsOmitted: gauge(
    'upstash_qstash_url_groups_omitted',
    `URL groups not exported because of max_url_groups; the groups with most endpoints are kept (count). ${POLLED_QSTASH}`,
  ),
  urlGroupEndpoints: gauge(
    'upstash_qstash_url_group_endpoints',
    `Endpoints in a URL group (count). ${POLLED_QSTASH}`,
  ),
  urlGroupCreated: gauge(
    'upstash_qstash_url_group_created_timestamp_seconds',
    `When the URL group was created (Unix time in seconds). ${POLLED_QSTASH}`,
    1000,
  ),
  urlGroupUpdated: gauge(
    'upstash_qstash_url_group_updated_timestamp_seconds',
    `When the URL group was last updated (Unix time in seconds). ${POLLED_QSTASH}`,
    1000,
  ),
} as const;

const MS = 1000;

/** Redis stats metrics by Upstash field, in the order they are exposed. */
export const STATS_METRICS: Record<StatsField, DataMetric> = {
  connection_count: gauge('upstash_redis_connections', `Open client connections (count). ${POLLED_STATS}`),
  keyspace: gauge('upstash_redis_keys', `Keys in the database (count). ${POLLED_STATS}`),
  throughput: gauge(
    'upstash_redis_throughput_commands_per_second',
    `Commands processed, reads and writes together (commands per second). ${POLLED_STATS}`,
  ),
  read: gauge(
    'upstash_redis_read_commands_per_second',
    `Read commands processed (commands per second). ${POLLED_STATS}`,
  ),
  write: gauge(
    'upstash_redis_write_commands_per_second',
    `Write commands processed (commands per second). ${POLLED_STATS}`,
  ),
  hits: gauge('upstash_redis_hits_per_second', `Keyspace hits (lookups per second). ${POLLED_STATS}`),
  misses: gauge('upstash_redis_misses_per_second', `Keyspace misses (lookups per second). ${POLLED_STATS}`),
  produce_throughput: gauge(
    'upstash_redis_produce_throughput',
    `Produce throughput, as reported by Upstash (unit not stated by Upstash). ${POLLED_STATS}`,
  ),
  consume_throughput: gauge(
    'upstash_redis_consume_throughput',
    `Consume throughput, as reported by Upstash (unit not stated by Upstash). ${POLLED_STATS}`,
  ),
  diskusage: gauge('upstash_redis_disk_usage_bytes', `Disk used by the database (bytes). ${POLLED_STATS}`),
  latencymean: gauge(
    'upstash_redis_latency_mean_seconds',
    `Mean service time of commands (seconds). ${POLLED_STATS}`,
    MS,
  ),
  read_latency_mean: gauge(
    'upstash_redis_read_latency_mean_seconds',
    `Mean service time of read commands (seconds). ${POLLED_STATS}`,
    MS,
  ),
  read_latency_99: gauge(
    'upstash_redis_read_latency_p99_seconds',
    `99th percentile service time of read commands (seconds). ${POLLED_STATS}`,
    MS,
  ),
  write_latency_mean: gauge(
    'upstash_redis_write_latency_mean_seconds',
    `Mean service time of write commands (seconds). ${POLLED_STATS}`,
    MS,
  ),
  write_latency_99: gauge(
    'upstash_redis_write_latency_p99_seconds',
    `99th percentile service time of write commands (seconds). ${POLLED_STATS}`,
    MS,
  ),
  dailyrequests: gauge('upstash_redis_daily_requests', `Requests on the latest day (count). ${POLLED_STATS}`),
  dailybilling: gauge(
    'upstash_redis_daily_billing_dollars',
    `Cost of the latest day (US dollars). ${POLLED_STATS}`,
  ),
  bandwidths: gauge(
    'upstash_redis_bandwidth_bytes',
    `Bandwidth used on the latest day (bytes). ${POLLED_STATS}`,
  ),
  dailyproduce: gauge(
    'upstash_redis_daily_produce',
    `Produce on the latest day, as reported by Upstash (unit not stated by Upstash). ${POLLED_STATS}`,
  ),
  dailyconsume: gauge(
    'upstash_redis_daily_consume',
    `Consume on the latest day, as reported by Upstash (unit not stated by Upstash). ${POLLED_STATS}`,
  ),
  dailybandwidth: gauge(
    'upstash_redis_daily_bandwidth_bytes',
    `Bandwidth used today (bytes). ${POLLED_MANAGEMENT}`,
  ),
  total_monthly_requests: gauge(
    'upstash_redis_monthly_requests',
    `Requests this month (count). ${POLLED_MANAGEMENT}`,
  ),
  total_monthly_read_requests: gauge(
    'upstash_redis_monthly_read_requests',
    `Read requests this month (count). ${POLLED_MANAGEMENT}`,
  ),
  total_monthly_write_requests: gauge(
    'upstash_redis_monthly_write_requests',
    `Write requests this month (count). ${POLLED_MANAGEMENT}`,
  ),
  total_monthly_storage: gauge(
    'upstash_redis_monthly_storage_bytes',
    `Storage billed this month (bytes). ${POLLED_MANAGEMENT}`,
  ),
  total_monthly_billing: gauge(
    'upstash_redis_monthly_billing_dollars',
    `Cost this month so far (US dollars). ${POLLED_MANAGEMENT}`,
  ),
  total_monthly_produce: gauge(
    'upstash_redis_monthly_produce',
    `Produce this month, as reported by Upstash (unit not stated by Upstash). ${POLLED_MANAGEMENT}`,
  ),
  total_monthly_consume: gauge(
    'upstash_redis_monthly_consume',
    `Consume this month, as reported by Upstash (unit not stated by Upstash). ${POLLED_MANAGEMENT}`,
  ),
};

export const STATS_SAMPLE_TIMESTAMP = gauge(
  'upstash_redis_stats_sample_timestamp_seconds',
  `Time of the newest point among the database's stats series (Unix time in seconds). ${POLLED_STATS}`,
);

/** Every data metric in exposition order. */
export const DATA_METRICS: readonly DataMetric[] = [
  ...Object.values(QSTASH_METRICS),
  ...Object.values(STATS_METRICS),
  STATS_SAMPLE_TIMESTAMP,
];
