import { pathSegment, type Target, type UpstashClient } from './client.js';
import { InvalidResponseError } from './errors.js';
import { parseGoTime, parseGoTimeNs } from './go-time.js';

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

/** Points dated further than this after our clock are skipped: Upstash pads daily arrays with the month. */
export const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** The field that carries per-command series. */
export const COMMAND_COUNTS = 'command_counts';

interface Latest {
  readonly at: bigint;
  readonly x: string;
  readonly y: number;
}

/** Why a field is rejected: its value, or one of its points, has the wrong type. */
class RejectedField extends Error {}

/**
 * Parses a stats body. A body that is not a JSON object is invalid; a known field of the wrong type
 * (or a series with one malformed point) is skipped alone and named in `rejected`. The latest point
 * is the one with the greatest `x`, not the last in the array; points with a null `y`, and points
 * dated more than {@link FUTURE_TOLERANCE_MS} after `nowMs`, are skipped.
 */
export function parseRedisStats(json: unknown, url = 'stats', nowMs = Date.now()): RedisStats {
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new InvalidResponseError('GET', url, 'wrong shape at top level: expected an object');
  const data = json as Record<string, unknown>;
  const values: Partial<Record<StatsField, number>> = {};
  const commands = new Map<string, number>();
  const rejected: string[] = [];
  // Compared in exact nanoseconds: points can be closer together than a double of Unix ms resolves.
  let newest: Latest | undefined;
  const horizon = BigInt(Math.floor(nowMs + FUTURE_TOLERANCE_MS)) * 1_000_000n;
  // The series share their timestamps (60 of them across some 900 points): parse each one once.
  const times = new Map<string, bigint>();
  const latestOf = (points: unknown): Latest | undefined => {
    if (!Array.isArray(points)) throw new RejectedField();
    let latest: Latest | undefined;
    for (const p of points as unknown[]) {
      if (typeof p !== 'object' || p === null) throw new RejectedField();
      const { x, y } = p as { x?: unknown; y?: unknown };
      // A point without a value is skipped whatever its time says.
      if (y === null) continue;
      if (typeof x !== 'string' || typeof y !== 'number' || !Number.isFinite(y)) throw new RejectedField();
      let at = times.get(x);
      if (at === undefined) {
        at = parseGoTimeNs(x);
        if (at === undefined) throw new RejectedField();
        times.set(x, at);
      }
      if (at > horizon) continue;
      if (latest === undefined || at > latest.at) latest = { at, x, y };
    }
    return latest;
  };
  const seen = (latest: Latest): void => {
    if (newest === undefined || latest.at > newest.at) newest = latest;
  };
  const newestX = (): number | undefined => (newest === undefined ? undefined : parseGoTime(newest.x));
  const tolerant = (field: string, read: () => void): void => {
    try {
      read();
    } catch (error) {
      if (!(error instanceof RejectedField)) throw error;
      rejected.push(field);
    }
  };

  for (const field of SERIES_FIELDS) {
    const points = data[field];
    if (points === null || points === undefined) continue;
    tolerant(field, () => {
      const latest = latestOf(points);
      if (latest === undefined) return;
      values[field] = latest.y;
      seen(latest);
    });
  }
  for (const field of NUMBER_FIELDS) {
    const value = data[field];
    if (value === null || value === undefined) continue;
    if (typeof value === 'number' && Number.isFinite(value)) values[field] = value;
    else rejected.push(field);
  }
  const counts = data[COMMAND_COUNTS];
  if (counts !== null && counts !== undefined) {
    tolerant(COMMAND_COUNTS, () => {
      // Read whole before anything is kept: a malformed entry rejects every command.
      const latest = commandCounts(counts, latestOf);
      for (const [command, point] of latest) {
        commands.set(command, point.y);
        seen(point);
      }
    });
  }
  return {
    values,
    commands,
    sampleTimestampMs: newestX(),
    rejected,
  };
}

/** The latest point of each command of `command_counts`; a malformed entry rejects the whole field. */
function commandCounts(
  counts: unknown,
  latestOf: (points: unknown) => Latest | undefined,
): Map<string, Latest> {
  if (!Array.isArray(counts)) throw new RejectedField();
  const out = new Map<string, Latest>();
  const named = new Set<string>();
  for (const entry of counts as unknown[]) {
    if (typeof entry !== 'object' || entry === null) throw new RejectedField();
    const { metric_identifier: command, data_points: points } = entry as Record<string, unknown>;
    // A repeated command would be two values under one label set.
    if (typeof command !== 'string' || command === '' || named.has(command)) throw new RejectedField();
    named.add(command);
    const latest = points === null || points === undefined ? undefined : latestOf(points);
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
