import { z } from 'zod';
import { pathSegment, type Target, type UpstashClient } from './client.js';
import { InvalidResponseError } from './errors.js';
import { parseGoTime, parseGoTimeNs } from './go-time.js';
import { describeIssues } from './schema.js';

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
] as const;

export type SeriesField = (typeof SERIES_FIELDS)[number];
export type NumberField = (typeof NUMBER_FIELDS)[number];
export type StatsField = SeriesField | NumberField;

/** One database's figures: the latest value of each series, the plain numbers, and the newest point's time. */
export interface RedisStats {
  readonly values: Partial<Record<StatsField, number>>;
  /** Unix ms of the newest usable point among the series; undefined when no series had one. */
  readonly sampleTimestampMs: number | undefined;
}

const point = z.object({ x: z.string(), y: z.number().nullable() });
const series = z.array(point).nullable().optional();
const plain = z.number().nullable().optional();
const body = z.object({
  ...Object.fromEntries(SERIES_FIELDS.map((field) => [field, series])),
  ...Object.fromEntries(NUMBER_FIELDS.map((field) => [field, plain])),
} as Record<SeriesField, typeof series> & Record<NumberField, typeof plain>);

/**
 * Parses a stats body. The latest point is the one with the greatest `x`, not the last in the
 * array; points with a null `y` are skipped; an unparseable `x` makes the whole body invalid.
 */
export function parseRedisStats(json: unknown, url = 'stats'): RedisStats {
  const parsed = body.safeParse(json);
  if (!parsed.success) throw new InvalidResponseError('GET', url, describeIssues(parsed.error));
  const data = parsed.data as Record<StatsField, unknown>;
  const values: Partial<Record<StatsField, number>> = {};
  // Compared in exact nanoseconds: points can be closer together than a double of Unix ms resolves.
  let newest: { at: bigint; x: string } | undefined;
  // The series share their timestamps (60 of them across some 900 points): parse each one once.
  const times = new Map<string, bigint>();
  for (const field of SERIES_FIELDS) {
    const points = data[field] as z.output<typeof series>;
    if (points === null || points === undefined) continue;
    let latest: { at: bigint; x: string; y: number } | undefined;
    for (const [index, p] of points.entries()) {
      // A point without a value is skipped whatever its time says.
      if (p.y === null) continue;
      let at = times.get(p.x);
      if (at === undefined) {
        at = parseGoTimeNs(p.x);
        if (at === undefined)
          throw new InvalidResponseError('GET', url, `${field}[${index}].x is not a Go time`);
        times.set(p.x, at);
      }
      if (latest === undefined || at > latest.at) latest = { at, x: p.x, y: p.y };
    }
    if (latest === undefined) continue;
    values[field] = latest.y;
    if (newest === undefined || latest.at > newest.at) newest = latest;
  }
  for (const field of NUMBER_FIELDS) {
    const value = data[field] as z.output<typeof plain>;
    if (value !== null && value !== undefined) values[field] = value;
  }
  return { values, sampleTimestampMs: newest === undefined ? undefined : parseGoTime(newest.x) };
}

/** Where and how to call the management API for one database. */
export type StatsTarget = Target & { readonly databaseId: string };

/** GET `{url}/v2/redis/stats/{id}`: one database's usage, latency and billing. */
export async function fetchRedisStats(client: UpstashClient, target: StatsTarget): Promise<RedisStats> {
  const url = `${target.baseUrl}/v2/redis/stats/${pathSegment(target.databaseId)}`;
  const json = await client.getJson({ ...target, url });
  return parseRedisStats(json, url);
}
