import { pathSegment, type Target, type UpstashClient } from './client.js';
import { objectEntry, rejectField, StatsBody, type Point } from './stats-series.js';

/** Stats fields that are time series of `{x, y}` points; we keep the latest point of each. */
export const SERIES_FIELDS = [
  'connection_count',
  'keyspace',
  'throughput',
  'read',
  'write',
  'hits',
  'misses',
  'produce_throughput',
  'consume_throughput',
  'diskusage',
  'latencymean',
  'latency_99',
  'read_latency_mean',
  'read_latency_99',
  'write_latency_mean',
  'write_latency_99',
  'dailyrequests',
  'dailybilling',
  'bandwidths',
  'dailyproduce',
  'dailyconsume',
] as const;

/** Stats fields that are plain numbers. */
export const NUMBER_FIELDS = [
  'dailybandwidth',
  'total_monthly_requests',
  'total_monthly_read_requests',
  'total_monthly_write_requests',
  'total_monthly_storage',
  'total_monthly_billing',
  'total_monthly_produce',
  'total_monthly_consume',
  'daily_net_commands',
  'daily_read_requests',
  'daily_write_requests',
  'total_monthly_bandwidth',
  'total_monthly_script_requests',
  'current_storage',
] as const;

export type SeriesField = (typeof SERIES_FIELDS)[number];
export type NumberField = (typeof NUMBER_FIELDS)[number];
export type StatsField = SeriesField | NumberField;

/** One database's figures: the latest value of each series, the plain numbers, and the newest point's time. */
export interface RedisStats {
  readonly values: Partial<Record<StatsField, number>>;
  /** Latest count of each command in `command_counts`, by `metric_identifier`. */
  readonly commands: ReadonlyMap<string, number>;
  /** Unix ms of the newest usable point among the series; undefined when no series had one. */
  readonly sampleTimestampMs: number | undefined;
  /** Known fields skipped alone for their wrong type (Upstash's names). */
  readonly rejected: readonly string[];
}

/** The field that carries per-command series. */
export const COMMAND_COUNTS = 'command_counts';

/**
 * Parses a stats body with the stats tolerance and series rules of {@link StatsBody}. The sample time
 * is the newest `x` among the usable points of every exported series, those of `command_counts`
 * included.
 */
export function parseRedisStats(json: unknown, url = 'stats', nowMs = Date.now()): RedisStats {
  const body = new StatsBody<StatsField | typeof COMMAND_COUNTS>(json, url, nowMs);
  const values = body.values<StatsField>(SERIES_FIELDS, NUMBER_FIELDS);
  // Read whole before anything is kept: a malformed entry rejects every command.
  const latest = body.field(COMMAND_COUNTS, (counts) => commandCounts(counts, body));
  const commands = new Map<string, number>();
  for (const [command, point] of latest ?? []) {
    commands.set(command, point.y);
    body.seen(point);
  }
  return { values, commands, sampleTimestampMs: body.newestMs, rejected: body.rejected };
}

/** The latest point of each command of `command_counts`; a malformed entry rejects the whole field. */
function commandCounts(counts: unknown, body: StatsBody<string>): Map<string, Point> {
  if (!Array.isArray(counts)) rejectField();
  const out = new Map<string, Point>();
  const named = new Set<string>();
  for (const entry of counts as unknown[]) {
    const { metric_identifier: command, data_points: points } = objectEntry(entry);
    // A repeated command would be two values under one label set.
    if (typeof command !== 'string' || command === '' || named.has(command)) rejectField();
    named.add(command);
    const latest = points === null || points === undefined ? undefined : body.latest(points);
    if (latest !== undefined) out.set(command, latest);
  }
  return out;
}

/** Where and how to call the management API for one database. */
export type StatsTarget = Target & { readonly databaseId: string };

/** GET `{url}/v2/redis/stats/{id}`: one database's usage, latency and billing. */
export async function fetchRedisStats(client: UpstashClient, target: StatsTarget): Promise<RedisStats> {
  const url = `${target.baseUrl}/v2/redis/stats/${pathSegment(target.databaseId)}`;
  const json = await client.getJson({ ...target, url });
  return parseRedisStats(json, url);
}
