import { createServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { jsonAnswer, send } from './answer.js';
import type { Answer } from './answer.js';
import { applyFault, FaultTable, Timers } from './faults.js';
import type { Fault } from './faults.js';
import { formatGoTime } from './go-time.js';
import { between, hashString, mix, noise, round, TAU } from './noise.js';

export type { Fault } from './faults.js';
export { formatGoTime } from './go-time.js';

/** QStash token the simulator accepts by default. */
export const DEMO_QSTASH_TOKEN = 'demo-qstash-token';
/** Management API e-mail the simulator accepts by default. */
export const DEMO_EMAIL = 'demo@example.com';
/** Management API key the simulator accepts by default. */
export const DEMO_API_KEY = 'demo-management-api-key';
/** Database IDs the simulator serves statistics for by default. */
export const DEMO_DATABASES: readonly string[] = ['db-demo-cache', 'db-demo-sessions', 'db-demo-events'];
/** Databases whose produce/consume series carry values; every other one has them null, as most do. */
export const DEMO_STREAMING_DATABASES: readonly string[] = ['db-demo-events'];
/** A default flow-control key containing a quote, a backslash, a newline and non-ASCII text. */
export const DEMO_ODD_FLOW_CONTROL_KEY = 'tenant "café" \\ eu\nbatch';
/** A default URL group name containing a quote, a backslash, a newline and non-ASCII text. */
export const DEMO_ODD_URL_GROUP = 'crème-brûlée "beta" \\ v2\nlegacy';
/** With `churn`, keys and URL groups are reshuffled once per this many clock milliseconds. */
export const CHURN_PERIOD_MS = 30_000;
/** Spacing of the points of the ten-second stats series. */
export const STATS_STEP_MS = 10_000;

/** The three Upstash operations the simulator serves. */
export type Route = 'flow_control' | 'url_groups' | 'redis_stats';

/** Every route, in a fixed order. */
export const ROUTES: readonly Route[] = ['flow_control', 'url_groups', 'redis_stats'];

/** One entry of the flow-control list, as QStash returns it. */
export interface FlowControlEntry {
  flowControlKey: string;
  waitListSize: number;
  parallelismMax?: number;
  parallelismCount?: number;
  rateMax?: number;
  ratePeriod?: number;
}

/** One URL group (topic), as QStash returns it. */
export interface UrlGroup {
  name: string;
  createdAt: number;
  updatedAt: number;
  endpoints: { name?: string; url: string }[];
}

/** Options of {@link startSimulator}; every field has a demo-friendly default. */
export interface SimulatorOptions {
  /** Listen address; default `127.0.0.1`. */
  host?: string;
  /** Listen port; default 0 (ephemeral). */
  port?: number;
  /** Accepted QStash bearer token; default {@link DEMO_QSTASH_TOKEN}. */
  qstashToken?: string;
  /** Accepted management e-mail; default {@link DEMO_EMAIL}. */
  email?: string;
  /** Accepted management API key; default {@link DEMO_API_KEY}. */
  apiKey?: string;
  /** Database IDs that exist; default {@link DEMO_DATABASES}. */
  databases?: readonly string[];
  /** Number of generated flow-control keys; default 6. */
  flowControlKeys?: number;
  /** Number of generated URL groups; default 4. */
  urlGroups?: number;
  /** Endpoints of the first (largest) URL group; the others have 1 to 4; default 12. */
  maxEndpoints?: number;
  /** Points per ten-second stats series; default 60, like the real API. */
  pointsPerSeries?: number;
  /** Seed of every generated value; default fixed. */
  seed?: number;
  /** Clock in Unix milliseconds; default `Date.now`. */
  now?: () => number;
  /** Stop time at start-up and cache bodies, so responses are byte-identical across calls. */
  frozen?: boolean;
  /** Let flow-control keys and URL groups appear and vanish every {@link CHURN_PERIOD_MS}. */
  churn?: boolean;
  /** `object` (documented `{"flowControls": [...]}`, the default) or a bare `array`. */
  flowControlShape?: 'object' | 'array';
  /** Make the last generated URL group have no endpoints. */
  emptyUrlGroup?: boolean;
}

/** A running fake of the Upstash endpoints on loopback. */
export interface Simulator {
  /** Base URL, e.g. `http://127.0.0.1:40123` (no trailing slash). */
  readonly url: string;
  /** TCP connections accepted since start (across restarts). */
  readonly connectionsOpened: number;
  /** Make a route (or every route) misbehave; `null` restores normal service. */
  setFault(route: Route | 'all', fault: Fault | null): void;
  /** Requests received for a route, whatever their method or outcome. */
  requests(route: Route): number;
  /** Headers of the last request received for a route. */
  lastHeaders(route: Route): IncomingHttpHeaders | undefined;
  /** Raw path (still URL-encoded, with query) of the last request received for a route. */
  lastPath(route: Route): string | undefined;
  /** Serve these flow-control entries instead of generated ones; `null` goes back to generated data. */
  setFlowControl(entries: readonly FlowControlEntry[] | null): void;
  /** Serve these URL groups instead of generated ones; `null` goes back to generated data. */
  setUrlGroups(groups: readonly UrlGroup[] | null): void;
  /** Make a key's wait list grow steadily from its current size (added if absent); `null` stops it. */
  setWaitListGrowth(key: string, perMinute: number | null): void;
  /** Replace the set of database IDs that exist (others answer 404). */
  setDatabases(ids: readonly string[]): void;
  /** Close the listener and destroy every open connection, hung ones included. */
  stop(): Promise<void>;
  /** Listen again on the same port after {@link Simulator.stop}, keeping all state. */
  restart(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------
// Flow control

interface FlowKeyProfile {
  key: string;
  id: number;
  amplitude: number;
  periodMs: number;
  phase: number;
  parallelismMax: number;
  rateMax: number;
}

const NAMED_FLOW_KEYS = [
  'user-signup',
  DEMO_ODD_FLOW_CONTROL_KEY,
  'payments:stripe-webhooks',
  'email/digest',
  'tenant-42',
  'image-resize',
];

function flowKeyProfile(seed: number, index: number, key: string): FlowKeyProfile {
  const u = (salt: number): number => noise(seed, index, salt);
  return {
    key,
    id: mix(seed ^ hashString(key)),
    // Some keys stay nearly idle, the busy ones peak at 50.
    amplitude: u(1) < 0.3 ? 3 : Math.round(between(u(2), 10, 50)),
    periodMs: between(u(3), 2, 12) * 60_000,
    phase: u(4) * TAU,
    parallelismMax: [1, 2, 5, 10, 20][Math.floor(u(5) * 5)] ?? 5,
    rateMax: [10, 50, 100, 500][Math.floor(u(6) * 4)] ?? 100,
  };
}

/** Wait-list size of a key at time t: two waves and some jitter, clipped at zero so lists drain. */
function waitListSize(p: FlowKeyProfile, t: number): number {
  const wave =
    0.6 * Math.sin((TAU * t) / p.periodMs + p.phase) + 0.4 * Math.sin((TAU * t) / (p.periodMs * 0.29));
  const jitter = noise(p.id, Math.floor(t / 5000), 7) - 0.5;
  return Math.max(0, Math.round(p.amplitude * (wave + 0.25 * jitter)));
}

function flowEntry(p: FlowKeyProfile, t: number): FlowControlEntry {
  const size = waitListSize(p, t);
  return {
    flowControlKey: p.key,
    waitListSize: size,
    parallelismMax: p.parallelismMax,
    parallelismCount: size > 0 ? p.parallelismMax : 0,
    rateMax: p.rateMax,
    ratePeriod: 60,
  };
}

function flowKeyName(index: number): string {
  return NAMED_FLOW_KEYS[index] ?? `queue-${String(index).padStart(5, '0')}`;
}

/** Generated flow-control list at time t. */
function generateFlowControl(
  profiles: readonly FlowKeyProfile[],
  seed: number,
  t: number,
  churn: boolean,
): FlowControlEntry[] {
  if (!churn) return profiles.map((p) => flowEntry(p, t));
  const epoch = Math.floor(t / CHURN_PERIOD_MS);
  const kept = profiles.filter((p) => noise(seed, p.id, epoch) < 0.75);
  const fresh = Array.from({ length: Math.ceil(profiles.length / 4) }, (_, j) =>
    flowKeyProfile(seed, profiles.length + j, `batch-${epoch}-${j}`),
  );
  return [...kept, ...fresh].map((p) => flowEntry(p, t));
}

// ---------------------------------------------------------------------------------------------------
// URL groups

const NAMED_GROUPS = ['orders', DEMO_ODD_URL_GROUP, 'email-notifications', 'webhooks/stripe'];
const HOSTS = ['api.example.com', 'worker.example.net', 'hooks.example.org', 'eu.example.io'];

function groupName(index: number): string {
  return NAMED_GROUPS[index] ?? `group-${String(index).padStart(5, '0')}`;
}

function slug(name: string): string {
  return (
    name
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '')
      .toLowerCase() || 'group'
  );
}

function makeGroup(seed: number, index: number, name: string, endpoints: number, origin: number): UrlGroup {
  const u = (salt: number): number => noise(seed ^ 0x5a17, index, salt);
  const createdAt = Math.round(origin - between(u(1), 1, 400) * 86_400_000);
  const updatedAt = Math.round(createdAt + u(2) * (origin - createdAt));
  const path = slug(name);
  return {
    name,
    createdAt,
    updatedAt,
    endpoints: Array.from({ length: endpoints }, (_, j) => {
      const url = `https://${HOSTS[(index + j) % HOSTS.length] ?? 'api.example.com'}/qstash/${path}/${j}`;
      // Roughly a third of real endpoints have no name.
      return j % 3 === 2 ? { url } : { name: `${path}-${j}`, url };
    }),
  };
}

interface GroupPlan {
  count: number;
  maxEndpoints: number;
  emptyLast: boolean;
  origin: number;
}

/** Endpoint count of group i: the first is large, the others small, never zero unless asked. */
function endpointCount(seed: number, index: number, plan: GroupPlan): number {
  if (plan.emptyLast && index === plan.count - 1) return 0;
  if (index === 0) return plan.maxEndpoints;
  return 1 + Math.floor(noise(seed, index, 0x3e) * Math.min(4, plan.maxEndpoints));
}

function generateUrlGroups(seed: number, t: number, plan: GroupPlan, churn: boolean): UrlGroup[] {
  const all = Array.from({ length: plan.count }, (_, i) =>
    makeGroup(seed, i, groupName(i), endpointCount(seed, i, plan), plan.origin),
  );
  if (!churn) return all;
  const epoch = Math.floor(t / CHURN_PERIOD_MS);
  const kept = all.filter((_, i) => noise(seed, i, epoch ^ 0x6f) < 0.75);
  const fresh = Array.from({ length: Math.ceil(plan.count / 4) }, (_, j) =>
    makeGroup(seed, plan.count + j, `preview-${epoch}-${j}`, 1 + (j % 3), epoch * CHURN_PERIOD_MS),
  );
  return [...kept, ...fresh];
}

// ---------------------------------------------------------------------------------------------------
// Redis database statistics

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
}

function databaseProfile(seed: number, databaseId: string, origin: number): DatabaseProfile {
  const id = mix(seed ^ hashString(databaseId));
  const u = (salt: number): number => noise(id, 0x0db, salt);
  return {
    id,
    origin,
    connections: Math.round(between(u(1), 2, 40)),
    keys: Math.round(between(u(2), 5_000, 400_000)),
    keysPerHour: between(u(3), 720, 7_200),
    ops: between(u(4), 5, 150),
    readFraction: between(u(5), 0.6, 0.9),
    hitRatio: between(u(6), 0.9, 0.99),
    latencyMs: between(u(7), 0.2, 1.2),
    bytesPerKey: between(u(8), 80, 600),
    bytesPerRequest: between(u(9), 200, 800),
    dailyDollars: between(u(10), 0.1, 0.5),
    streams: DEMO_STREAMING_DATABASES.includes(databaseId),
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
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/**
 * Stats body of a database at time t. Two quirks of the real API are kept on purpose: the newest
 * `keyspace` point is first in its array, and the newest `throughput` point has `"y": null`.
 */
function generateStats(p: DatabaseProfile, t: number, points: number): Record<string, unknown> {
  const newestBucket = Math.floor((t - 1000) / STATS_STEP_MS);
  const buckets = Array.from({ length: points }, (_, k) => newestBucket - (points - 1 - k));
  const xs = buckets.map((b) => formatGoTime(b * STATS_STEP_MS, fractionFor(p.id, b)));
  const series = (salt: number, f: (tk: number, u: number) => number): Point[] =>
    buckets.map((b, k) => ({ x: xs[k] ?? '', y: f(b * STATS_STEP_MS, noise(p.id, b, salt)) }));
  const wave = (tk: number, minutes: number): number =>
    Math.sin((TAU * tk) / (minutes * 60_000) + (p.id % 97));

  const throughputAt = (tk: number, u: number): number => p.ops * (1 + 0.35 * wave(tk, 23) + 0.2 * (u - 0.5));
  const keysAt = (tk: number): number =>
    Math.max(0, Math.round(p.keys + (p.keysPerHour * (tk - p.origin)) / 3_600_000));
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
  const dayNumbers = Array.from({ length: 7 }, (_, k) => today - 6 + k);
  const daily = (salt: number, f: (u: number) => number): Point[] =>
    dayNumbers.map((d) => ({ x: formatGoTime(d * DAY_MS), y: f(noise(p.id, d, salt)) }));
  const requestsOn = (u: number): number => Math.round(p.ops * 86_400 * (0.7 + 0.6 * u));
  const dailyrequests = daily(20, requestsOn);
  const bandwidths = daily(20, (u) => Math.round(requestsOn(u) * p.bytesPerRequest));
  const dayOfMonth = new Date(t).getUTCDate();
  const monthlyRequests = Math.round(p.ops * 86_400 * dayOfMonth);
  const monthlyReads = Math.round(monthlyRequests * p.readFraction);

  return {
    connection_count: series(1, (tk, u) => Math.round(p.connections * (1 + 0.3 * wave(tk, 17)) + 3 * u)),
    keyspace,
    throughput,
    produce_throughput: p.streams ? series(40, (tk, u) => round(throughputAt(tk, u) * 0.1 * u, 2)) : null,
    consume_throughput: p.streams ? series(41, (tk, u) => round(throughputAt(tk, u) * 0.1 * u, 2)) : null,
    diskusage: series(4, (tk) => Math.round(keysAt(tk) * p.bytesPerKey)),
    latencymean: series(5, (tk, u) => round(latencyAt(tk, u), 3)),
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
    dailyproduce: p.streams ? daily(42, (u) => Math.round(requestsOn(u) * 0.05)) : null,
    dailyconsume: p.streams ? daily(43, (u) => Math.round(requestsOn(u) * 0.05)) : null,
    days: dayNumbers.map((d) => WEEKDAYS[(d + 4) % 7] ?? ''),
    dailybandwidth: bandwidths.at(-1)?.y ?? 0,
    total_monthly_requests: monthlyRequests,
    total_monthly_read_requests: monthlyReads,
    total_monthly_write_requests: monthlyRequests - monthlyReads,
    total_monthly_storage: Math.round(keysAt(t) * p.bytesPerKey),
    total_monthly_billing: round(p.dailyDollars * dayOfMonth, 4),
    total_monthly_produce: 0,
    total_monthly_consume: 0,
    total_monthly_bandwidth: Math.round(monthlyRequests * p.bytesPerRequest),
    command_counts: ['GET', 'SET', 'EXPIRE'].map((command, c) => ({
      metric_identifier: command,
      data_points: series(30 + c, (tk, u) => Math.round(throughputAt(tk, u) * (0.5 / (c + 1)) * 10)).slice(
        -3,
      ),
    })),
    monitor_count: 0,
  };
}

// The oversize fault pads a body of the route's outer shape, so only the size is wrong.
const OVERSIZE_FRAMES: Record<Route, readonly [head: string, tail: string]> = {
  flow_control: ['{"flowControls":[],"padding":"', '"}'],
  url_groups: ['[{"name":"padding","createdAt":0,"updatedAt":0,"endpoints":[],"padding":"', '"}]'],
  redis_stats: ['{"connection_count":[],"padding":"', '"}'],
};

// ---------------------------------------------------------------------------------------------------
// The server

function matchRoute(path: string): { route: Route; databaseId?: string } | undefined {
  if (path === '/v2/flowControl' || path === '/v2/flowControl/') return { route: 'flow_control' };
  if (path === '/v2/topics' || path === '/v2/topics/') return { route: 'url_groups' };
  const stats = /^\/v2\/redis\/stats\/([^/]+)\/?$/.exec(path);
  if (stats?.[1] === undefined) return undefined;
  try {
    return { route: 'redis_stats', databaseId: decodeURIComponent(stats[1]) };
  } catch {
    return undefined;
  }
}

/** Start the simulator; it listens on 127.0.0.1 and an ephemeral port unless told otherwise. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const host = options.host ?? '127.0.0.1';
  const token = options.qstashToken ?? DEMO_QSTASH_TOKEN;
  const basic = `${options.email ?? DEMO_EMAIL}:${options.apiKey ?? DEMO_API_KEY}`;
  const seed = (options.seed ?? 20250831) >>> 0;
  const churn = options.churn ?? false;
  const frozen = options.frozen ?? false;
  const points = Math.max(1, options.pointsPerSeries ?? 60);
  const shape = options.flowControlShape ?? 'object';
  const clock = options.now ?? Date.now;
  const origin = clock();
  // Frozen: time stands still at start-up, and bodies are cached until a test changes the data.
  const now = frozen ? () => origin : clock;

  const flowProfiles = Array.from({ length: options.flowControlKeys ?? NAMED_FLOW_KEYS.length }, (_, i) =>
    flowKeyProfile(seed, i, flowKeyName(i)),
  );
  const groupPlan: GroupPlan = {
    count: options.urlGroups ?? NAMED_GROUPS.length,
    maxEndpoints: Math.max(1, options.maxEndpoints ?? 12),
    emptyLast: options.emptyUrlGroup ?? false,
    origin,
  };
  let databases = new Set(options.databases ?? DEMO_DATABASES);
  const databaseProfiles = new Map<string, DatabaseProfile>();
  let flowOverride: readonly FlowControlEntry[] | null = null;
  let groupsOverride: readonly UrlGroup[] | null = null;
  const growth = new Map<string, { base: number; since: number; perMinute: number }>();
  const cache = new Map<string, Buffer>();

  const faults = new FaultTable<Route>();
  const counters = new Map<Route, number>(ROUTES.map((r) => [r, 0]));
  const headers = new Map<Route, IncomingHttpHeaders>();
  const paths = new Map<Route, string>();
  const sockets = new Set<Socket>();
  const timers = new Timers();
  let connectionsOpened = 0;

  const flowControlAt = (t: number): FlowControlEntry[] => {
    const entries = flowOverride
      ? flowOverride.map((e) => ({ ...e }))
      : generateFlowControl(flowProfiles, seed, t, churn);
    for (const [key, g] of growth) {
      const size = Math.max(0, Math.round(g.base + (g.perMinute * (t - g.since)) / 60_000));
      const entry = entries.find((e) => e.flowControlKey === key);
      if (entry) entry.waitListSize = size;
      else entries.push({ flowControlKey: key, waitListSize: size });
    }
    return entries;
  };

  const cached = (key: string, make: () => unknown): Buffer => {
    const hit = frozen ? cache.get(key) : undefined;
    if (hit) return hit;
    const body = Buffer.from(JSON.stringify(make()));
    if (frozen) cache.set(key, body);
    return body;
  };

  const answer = (req: IncomingMessage, route: Route, databaseId: string | undefined): Answer => {
    const auth = req.headers.authorization ?? '';
    if (route === 'redis_stats') {
      const m = /^Basic\s+(\S+)$/i.exec(auth);
      if (m?.[1] === undefined || Buffer.from(m[1], 'base64').toString('utf8') !== basic) {
        return jsonAnswer(401, { error: 'Unauthorized' }, { 'www-authenticate': 'Basic realm="upstash"' });
      }
      if (databaseId === undefined || !databases.has(databaseId)) {
        return jsonAnswer(404, { error: 'database not found' });
      }
      const body = cached(`stats:${databaseId}`, () => {
        let profile = databaseProfiles.get(databaseId);
        if (!profile) {
          profile = databaseProfile(seed, databaseId, origin);
          databaseProfiles.set(databaseId, profile);
        }
        return generateStats(profile, now(), points);
      });
      return { status: 200, body };
    }
    if (auth !== `Bearer ${token}`) {
      return jsonAnswer(401, { error: 'Unauthorized' }, { 'www-authenticate': 'Bearer' });
    }
    if (route === 'flow_control') {
      return {
        status: 200,
        body: cached('flow', () => {
          const entries = flowControlAt(now());
          return shape === 'array' ? entries : { flowControls: entries };
        }),
      };
    }
    return {
      status: 200,
      body: cached('groups', () => groupsOverride ?? generateUrlGroups(seed, now(), groupPlan, churn)),
    };
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const rawPath = req.url ?? '/';
    const match = matchRoute(rawPath.split('?', 1)[0] ?? '/');
    if (!match) {
      send(res, jsonAnswer(404, { error: 'not found' }));
      return;
    }
    const { route, databaseId } = match;
    counters.set(route, (counters.get(route) ?? 0) + 1);
    headers.set(route, req.headers);
    paths.set(route, rawPath);
    if (req.method !== 'GET') {
      send(res, jsonAnswer(405, { error: 'method not allowed' }, { allow: 'GET' }));
      return;
    }
    const fault = faults.take(route);
    const normal = (): Answer => answer(req, route, databaseId);
    if (fault) applyFault(res, fault, { normal, oversizeFrame: OVERSIZE_FRAMES[route], timers });
    else send(res, normal());
  };

  let server: Server | undefined;
  let port = options.port ?? 0;

  const listen = async (): Promise<void> => {
    const s = createServer(handle);
    s.on('connection', (socket) => {
      connectionsOpened++;
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen({ host, port }, () => {
        s.off('error', reject);
        resolve();
      });
    });
    port = (s.address() as AddressInfo).port;
    server = s;
  };

  const stop = async (): Promise<void> => {
    const s = server;
    if (!s) return;
    server = undefined;
    timers.clear();
    const closed = new Promise<void>((resolve) =>
      s.close(() => {
        resolve();
      }),
    );
    for (const socket of sockets) socket.destroy();
    await closed;
  };

  await listen();
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const invalidate = (): void => {
    cache.clear();
  };

  return {
    get url() {
      return `http://${urlHost}:${port}`;
    },
    get connectionsOpened() {
      return connectionsOpened;
    },
    setFault(route, fault) {
      for (const r of route === 'all' ? ROUTES : [route]) faults.set(r, fault);
    },
    requests: (route) => counters.get(route) ?? 0,
    lastHeaders: (route) => headers.get(route),
    lastPath: (route) => paths.get(route),
    setFlowControl(entries) {
      flowOverride = entries;
      invalidate();
    },
    setUrlGroups(groups) {
      groupsOverride = groups;
      invalidate();
    },
    setWaitListGrowth(key, perMinute) {
      const t = now();
      if (perMinute === null) growth.delete(key);
      else {
        const base = flowControlAt(t).find((e) => e.flowControlKey === key)?.waitListSize ?? 0;
        growth.set(key, { base, since: t, perMinute });
      }
      invalidate();
    },
    setDatabases(ids) {
      databases = new Set(ids);
      invalidate();
    },
    stop,
    async restart() {
      await stop();
      await listen();
    },
  };
}
