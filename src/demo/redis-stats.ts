import { PerIdBodies } from './bodies.js';
import { defineEndpoint } from './endpoint.js';
import type { SimulatedDatabase } from './fleet.js';
import { formatGoTime } from './go-time.js';
import { between, hashString, mix, noise, round, TAU } from './noise.js';

/**
 * The field a suspended database sends with the wrong type on purpose (a plain number where a series
 * belongs), as after an API change: the demo shows the `field rejected` warning it causes.
 */
export const DEMO_CHANGED_FIELD = 'dailyproduce';

/** Databases whose produce/consume series carry values; every other one has them null, as most do. */
export const DEMO_STREAMING_DATABASES: readonly string[] = ['db-demo-events'];
/** Spacing of the points of the ten-second stats series. */
export const STATS_STEP_MS = 10_000;

/** Options of the simulated `GET /v2/redis/stats/{id}`. */
export interface RedisStatsOptions {
  /** Points per ten-second stats series; default 60, like the real API. */
  pointsPerSeries?: number;
}

interface DatabaseProfile {
  id: number;
  origin: number;
  connections: number;
  keys: number;
  keysPerHour: number;
  ops: number;
  readFraction: number;
  hitRatio: number;
  latencyMs: number;
  bytesPerKey: number;
  bytesPerRequest: number;
  dailyDollars: number;
  /** Whether the produce/consume series carry values (null for most databases). */
  streams: boolean;
  /** Request and disk limits the figures stay just below (a free database near its limits). */
  nearLimits: { requests: number; disk: number } | undefined;
  /**
   * Whether one field has the wrong type (a plain 0 where the {@link DEMO_CHANGED_FIELD} series belongs), as after
   * an API change: the exporter skips it alone and counts it in upstash_exporter_fields_rejected_total.
   */
  changedField: boolean;
}

function databaseProfile(seed: number, database: SimulatedDatabase, origin: number): DatabaseProfile {
  const id = mix(seed ^ hashString(database.id));
  const u = (salt: number): number => noise(id, 0x0db, salt);
  return {
    id,
    origin,
    connections: Math.round(between(u(1), 2, 40)),
    keys: Math.round(between(u(2), 5_000, 400_000)),
    keysPerHour: between(u(3), 720, 7_200),
    // A free database near its monthly request limit runs at about that limit spread over a month.
    ops:
      database.nearLimits && database.requestLimit !== undefined
        ? database.requestLimit / (86_400 * 31)
        : between(u(4), 5, 150),
    readFraction: between(u(5), 0.6, 0.9),
    hitRatio: between(u(6), 0.9, 0.99),
    latencyMs: between(u(7), 0.2, 1.2),
    bytesPerKey: between(u(8), 80, 600),
    bytesPerRequest: between(u(9), 200, 800),
    dailyDollars: between(u(10), 0.1, 0.5),
    streams: DEMO_STREAMING_DATABASES.includes(database.id),
    changedField: database.state === 'suspended',
    nearLimits:
      database.nearLimits && database.requestLimit !== undefined
        ? { requests: database.requestLimit, disk: database.diskLimit }
        : undefined,
  };
}

/** Sub-second digits for a point: 0 to 9 of them, cycling across points, last digit non-zero as Go prints. */
function fractionFor(id: number, bucket: number): string {
  const digits = bucket % 10;
  if (digits === 0) return '';
  const raw = String(Math.floor(noise(id, bucket, 0xf4) * 1e9))
    .padStart(9, '0')
    .slice(0, digits);
  return raw.slice(0, -1) + String(1 + (Number(raw.at(-1)) % 9));
}

interface Point {
  x: string;
  y: number | null;
}

const DAY_MS = 86_400_000;
/** Commands counted in `command_counts`, most used first. */
const COMMANDS = ['GET', 'SET', 'EXPIRE', 'DEL', 'HGET', 'HSET', 'INCR', 'EXISTS'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * Stats body of a database at time t. Two quirks of the real API are kept on purpose: the newest
 * `keyspace` point is first in its array, and the newest `throughput` point has `"y": null`.
 */
function generateStats(
  p: DatabaseProfile,
  t: number,
  points: number,
  padMonth: boolean,
): Record<string, unknown> {
  const newestBucket = Math.floor((t - 1000) / STATS_STEP_MS);
  const buckets = Array.from({ length: points }, (_, k) => newestBucket - (points - 1 - k));
  const xs = buckets.map((b) => formatGoTime(b * STATS_STEP_MS, fractionFor(p.id, b)));
  const series = (salt: number, f: (tk: number, u: number) => number): Point[] =>
    buckets.map((b, k) => ({ x: xs[k] ?? '', y: f(b * STATS_STEP_MS, noise(p.id, b, salt)) }));
  const wave = (tk: number, minutes: number): number =>
    Math.sin((TAU * tk) / (minutes * 60_000) + (p.id % 97));

  const throughputAt = (tk: number, u: number): number => p.ops * (1 + 0.35 * wave(tk, 23) + 0.2 * (u - 0.5));
  const keysAt = (tk: number): number =>
    p.nearLimits === undefined
      ? Math.max(0, Math.round(p.keys + (p.keysPerHour * (tk - p.origin)) / 3_600_000))
      : // Near its disk limit: some 90 %, breathing by a few per cent.
        Math.round(((0.9 + 0.03 * wave(tk, 7)) * p.nearLimits.disk) / p.bytesPerKey);
  const latencyAt = (tk: number, u: number): number =>
    p.latencyMs * (1 + 0.3 * wave(tk, 31) + 0.2 * (u - 0.5));
  const p99 = (mean: number): number => round(Math.min(8, Math.max(1, mean * 4.5)), 3);

  const keyspace = series(2, (tk) => keysAt(tk));
  const newestKey = keyspace.pop();
  if (newestKey) keyspace.unshift(newestKey);
  const throughput = series(3, (tk, u) => round(throughputAt(tk, u), 2));
  const newestThroughput = throughput.at(-1);
  if (newestThroughput) newestThroughput.y = null;

  const today = Math.floor(t / DAY_MS);
  // Upstash pads the daily arrays with the rest of the month, dated in the future, valued 0. Not when
  // frozen: a frozen clock is in the past of the exporter's, for which those days would not be future.
  const monthEnd = Math.floor(
    Date.UTC(new Date(t).getUTCFullYear(), new Date(t).getUTCMonth() + 1, 1) / DAY_MS,
  );
  const padding = padMonth ? monthEnd - today - 1 : 0;
  const dayNumbers = Array.from({ length: 7 + padding }, (_, k) => today - 6 + k);
  const daily = (salt: number, f: (u: number) => number): Point[] =>
    dayNumbers.map((d) => ({ x: formatGoTime(d * DAY_MS), y: d > today ? 0 : f(noise(p.id, d, salt)) }));
  const requestsOn = (u: number): number => Math.round(p.ops * 86_400 * (0.7 + 0.6 * u));
  const dailyrequests = daily(20, requestsOn);
  const bandwidths = daily(20, (u) => Math.round(requestsOn(u) * p.bytesPerRequest));
  const dayOfMonth = new Date(t).getUTCDate();
  const monthlyRequests =
    p.nearLimits === undefined
      ? Math.round(p.ops * 86_400 * dayOfMonth)
      : Math.round(p.nearLimits.requests * (0.88 + 0.04 * wave(t, 11)));
  const todayRequests = dailyrequests.find((point) => point.x === formatGoTime(today * DAY_MS))?.y ?? 0;
  const todayReads = Math.round(todayRequests * p.readFraction);
  const monthlyReads = Math.round(monthlyRequests * p.readFraction);

  return {
    connection_count: series(1, (tk, u) => Math.round(p.connections * (1 + 0.3 * wave(tk, 17)) + 3 * u)),
    keyspace,
    throughput,
    produce_throughput: p.streams ? series(40, (tk, u) => round(throughputAt(tk, u) * 0.1 * u, 2)) : null,
    consume_throughput: p.streams ? series(41, (tk, u) => round(throughputAt(tk, u) * 0.1 * u, 2)) : null,
    diskusage: series(4, (tk) => Math.round(keysAt(tk) * p.bytesPerKey)),
    latencymean: series(5, (tk, u) => round(latencyAt(tk, u), 3)),
    latency_99: series(5, (tk, u) => p99(latencyAt(tk, u))),
    read_latency_mean: series(5, (tk, u) => round(latencyAt(tk, u) * 0.85, 3)),
    read_latency_99: series(5, (tk, u) => p99(latencyAt(tk, u) * 0.85)),
    write_latency_mean: series(5, (tk, u) => round(latencyAt(tk, u) * 1.25, 3)),
    write_latency_99: series(5, (tk, u) => p99(latencyAt(tk, u) * 1.25)),
    hits: series(3, (tk, u) => round(throughputAt(tk, u) * p.readFraction * p.hitRatio, 2)),
    misses: series(3, (tk, u) => round(throughputAt(tk, u) * p.readFraction * (1 - p.hitRatio), 2)),
    read: series(3, (tk, u) => round(throughputAt(tk, u) * p.readFraction, 2)),
    write: series(3, (tk, u) => round(throughputAt(tk, u) * (1 - p.readFraction), 2)),
    dailyrequests,
    dailybilling: daily(21, (u) => round(p.dailyDollars * (0.7 + 0.6 * u), 4)),
    bandwidths,
    [DEMO_CHANGED_FIELD]: p.changedField
      ? 0
      : p.streams
        ? daily(42, (u) => Math.round(requestsOn(u) * 0.05))
        : null,
    dailyconsume: p.streams ? daily(43, (u) => Math.round(requestsOn(u) * 0.05)) : null,
    days: dayNumbers.map((d) => WEEKDAYS[(d + 4) % 7] ?? ''),
    daily_net_commands: todayRequests,
    daily_read_requests: todayReads,
    daily_write_requests: todayRequests - todayReads,
    dailybandwidth: bandwidths.at(-1)?.y ?? 0,
    total_monthly_requests: monthlyRequests,
    total_monthly_read_requests: monthlyReads,
    total_monthly_write_requests: monthlyRequests - monthlyReads,
    total_monthly_storage: Math.round(keysAt(t) * p.bytesPerKey),
    total_monthly_billing: round(p.dailyDollars * dayOfMonth, 4),
    total_monthly_produce: 0,
    total_monthly_consume: 0,
    total_monthly_bandwidth: Math.round(monthlyRequests * p.bytesPerRequest),
    total_monthly_script_requests: Math.round(monthlyRequests * 0.01),
    current_storage: Math.round(keysAt(t) * p.bytesPerKey),
    queue_optimized: false,
    command_counts: COMMANDS.map((command, c) => ({
      metric_identifier: command,
      data_points: series(30 + c, (tk, u) => Math.round(throughputAt(tk, u) * (0.5 / (c + 1)) * 10)).slice(
        -3,
      ),
    })),
    monitor_count: 0,
  };
}

/** Management API `GET /v2/redis/stats/{id}` of the databases listed now; others answer 404. */
export const redisStatsEndpoint = defineEndpoint({
  name: 'redis_stats',
  credential: 'basic',
  path: '/v2/redis/stats/{id}',
  oversizeFrame: ['{"connection_count":[],"padding":"', '"}'],
  create: (ctx, options: RedisStatsOptions) => {
    const points = Math.max(1, options.pointsPerSeries ?? 60);
    // Made on a database's first request and kept: an ID always names the same database.
    const profiles = new Map<string, DatabaseProfile>();
    return new PerIdBodies(ctx, ctx.registries.databases, 'database not found', (database, t) => {
      let profile = profiles.get(database.id);
      if (!profile) {
        profile = databaseProfile(ctx.seed, database, ctx.origin);
        profiles.set(database.id, profile);
      }
      return generateStats(profile, t, points, !ctx.frozen);
    });
  },
});
