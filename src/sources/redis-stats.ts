import { gauge, type DataMetric } from '../metrics/catalogue.js';
import { keepLargest, sample, type Sample } from '../metrics/sample.js';
import {
  NUMBER_FIELDS,
  SERIES_FIELDS,
  fetchRedisStats,
  type RedisStats,
  type StatsField,
} from '../upstash/redis-stats.js';
import { LATEST_POINT, polled, type SourceKind } from './source.js';

const POLLED = polled('redis_stats');
const LATEST = polled('redis_stats', LATEST_POINT);

const MS = 1000;

/** Redis stats metrics by Upstash field, in the order they are exposed. */
const STATS_METRICS: Record<StatsField, DataMetric> = {
  connection_count: gauge('upstash_redis_connections', `Open client connections (count). ${LATEST}`),
  keyspace: gauge('upstash_redis_keys', `Keys in the database (count). ${LATEST}`),
  throughput: gauge(
    'upstash_redis_throughput_commands_per_second',
    `Commands processed, reads and writes together (commands per second). ${LATEST}`,
  ),
  read: gauge(
    'upstash_redis_read_commands_per_second',
    `Read commands processed (commands per second). ${LATEST}`,
  ),
  write: gauge(
    'upstash_redis_write_commands_per_second',
    `Write commands processed (commands per second). ${LATEST}`,
  ),
  hits: gauge('upstash_redis_hits_per_second', `Keyspace hits (lookups per second). ${LATEST}`),
  misses: gauge('upstash_redis_misses_per_second', `Keyspace misses (lookups per second). ${LATEST}`),
  produce_throughput: gauge(
    'upstash_redis_produce_throughput',
    `Produce throughput, as reported by Upstash (unit not stated by Upstash). ${LATEST}`,
  ),
  consume_throughput: gauge(
    'upstash_redis_consume_throughput',
    `Consume throughput, as reported by Upstash (unit not stated by Upstash). ${LATEST}`,
  ),
  diskusage: gauge('upstash_redis_disk_usage_bytes', `Disk used by the database (bytes). ${LATEST}`),
  latencymean: gauge(
    'upstash_redis_latency_mean_seconds',
    `Mean service time of commands (seconds). ${LATEST}`,
    MS,
  ),
  latency_99: gauge(
    'upstash_redis_latency_p99_seconds',
    `99th percentile service time of commands (seconds). ${LATEST}`,
    MS,
  ),
  read_latency_mean: gauge(
    'upstash_redis_read_latency_mean_seconds',
    `Mean service time of read commands (seconds). ${LATEST}`,
    MS,
  ),
  read_latency_99: gauge(
    'upstash_redis_read_latency_p99_seconds',
    `99th percentile service time of read commands (seconds). ${LATEST}`,
    MS,
  ),
  write_latency_mean: gauge(
    'upstash_redis_write_latency_mean_seconds',
    `Mean service time of write commands (seconds). ${LATEST}`,
    MS,
  ),
  write_latency_99: gauge(
    'upstash_redis_write_latency_p99_seconds',
    `99th percentile service time of write commands (seconds). ${LATEST}`,
    MS,
  ),
  dailyrequests: gauge('upstash_redis_daily_requests', `Requests on the latest day (count). ${LATEST}`),
  dailybilling: gauge(
    'upstash_redis_daily_billing_dollars',
    `Cost of the latest day (US dollars). ${LATEST}`,
  ),
  bandwidths: gauge('upstash_redis_bandwidth_bytes', `Bandwidth used on the latest day (bytes). ${LATEST}`),
  dailyproduce: gauge(
    'upstash_redis_daily_produce',
    `Produce on the latest day, as reported by Upstash (unit not stated by Upstash). ${LATEST}`,
  ),
  dailyconsume: gauge(
    'upstash_redis_daily_consume',
    `Consume on the latest day, as reported by Upstash (unit not stated by Upstash). ${LATEST}`,
  ),
  dailybandwidth: gauge('upstash_redis_daily_bandwidth_bytes', `Bandwidth used today (bytes). ${POLLED}`),
  total_monthly_requests: gauge('upstash_redis_monthly_requests', `Requests this month (count). ${POLLED}`),
  total_monthly_read_requests: gauge(
    'upstash_redis_monthly_read_requests',
    `Read requests this month (count). ${POLLED}`,
  ),
  total_monthly_write_requests: gauge(
    'upstash_redis_monthly_write_requests',
    `Write requests this month (count). ${POLLED}`,
  ),
  total_monthly_storage: gauge(
    'upstash_redis_monthly_storage_bytes',
    `Storage billed this month (bytes). ${POLLED}`,
  ),
  total_monthly_billing: gauge(
    'upstash_redis_monthly_billing_dollars',
    `Cost this month so far (US dollars). ${POLLED}`,
  ),
  total_monthly_produce: gauge(
    'upstash_redis_monthly_produce',
    `Produce this month, as reported by Upstash (unit not stated by Upstash). ${POLLED}`,
  ),
  total_monthly_consume: gauge(
    'upstash_redis_monthly_consume',
    `Consume this month, as reported by Upstash (unit not stated by Upstash). ${POLLED}`,
  ),
  daily_net_commands: gauge('upstash_redis_daily_commands', `Commands run today (count). ${POLLED}`),
  daily_read_requests: gauge('upstash_redis_daily_read_requests', `Read requests today (count). ${POLLED}`),
  daily_write_requests: gauge(
    'upstash_redis_daily_write_requests',
    `Write requests today (count). ${POLLED}`,
  ),
  total_monthly_bandwidth: gauge(
    'upstash_redis_monthly_bandwidth_bytes',
    `Bandwidth used this month (bytes). ${POLLED}`,
  ),
  total_monthly_script_requests: gauge(
    'upstash_redis_monthly_script_requests',
    `Script requests this month (count). ${POLLED}`,
  ),
  current_storage: gauge('upstash_redis_storage_bytes', `Storage the database uses now (bytes). ${POLLED}`),
};
const COMMANDS = gauge(
  'upstash_redis_commands',
  `Latest count of one command, as reported by Upstash (at most max_commands_per_database per database, largest first). ${LATEST}`,
);
const STATS_SAMPLE_TIMESTAMP = gauge(
  'upstash_redis_stats_sample_timestamp_seconds',
  `Time of the newest point among the database's stats series (Unix time in seconds). ${LATEST}`,
  MS,
);

/** The samples of one database's stats, converted to base units; at most `maxCommands` commands. */
export function redisStatsSamples(
  account: string,
  databaseId: string,
  stats: RedisStats,
  maxCommands = Number.POSITIVE_INFINITY,
): Sample[] {
  const labels = [
    ['account', account],
    ['database_id', databaseId],
  ] as const;
  const samples: Sample[] = [];
  for (const field of [...SERIES_FIELDS, ...NUMBER_FIELDS]) {
    const value = stats.values[field];
    if (value !== undefined) samples.push(sample(STATS_METRICS[field], labels, value));
  }
  const commands = keepLargest(
    [...stats.commands],
    maxCommands,
    ([, count]) => count,
    ([command]) => command,
  );
  for (const [command, count] of commands)
    samples.push(sample(COMMANDS, [...labels, ['command', command]], count));
  if (stats.sampleTimestampMs !== undefined) {
    samples.push(sample(STATS_SAMPLE_TIMESTAMP, labels, stats.sampleTimestampMs));
  }
  return samples;
}

/** Management API stats of one Redis database: the latest point of each series, once per database. */
export const redisStats: SourceKind<'redis_stats'> = {
  name: 'redis_stats',
  per: 'database',
  metrics: [...Object.values(STATS_METRICS), COMMANDS, STATS_SAMPLE_TIMESTAMP],
  async poll({ client, account, unit, limits, signal, deadline }) {
    const stats = await fetchRedisStats(client, { ...account, databaseId: unit, signal, deadline });
    return {
      samples: redisStatsSamples(account.name, unit, stats, limits.maxCommandsPerDatabase),
      ...(stats.rejected.length > 0 && { rejectedFields: stats.rejected }),
    };
  },
};
