import { DataSeries } from '../src/metrics/data-series.js';
import { flowControlSamples } from '../src/sources/flow-control.js';
import { DATA_METRICS } from '../src/sources/kinds.js';
import { redisStatsSamples } from '../src/sources/redis-stats.js';
import { urlGroupSamples } from '../src/sources/url-groups.js';
import { DEMO_API_KEY, DEMO_EMAIL, DEMO_QSTASH_TOKEN, type Simulator } from '../src/demo/simulator.js';
import { parseFlowControl } from '../src/upstash/flow-control.js';
import { parseRedisStats } from '../src/upstash/redis-stats.js';
import { parseUrlGroups } from '../src/upstash/url-groups.js';
import { EventScan, startState } from '../src/sources/event-rule.js';
import { counterSamples } from '../src/sources/event-samples.js';
import { countedLogEvent } from '../src/sources/qstash-logs.js';
import { QSTASH_LOGS } from '../src/upstash/qstash-logs.js';
import { parseListing } from '../src/upstash/schema.js';
import { DEMO_EVENT_SECRET } from '../src/demo/simulator.js';
import { cpuMicrosPerCall } from './cpu.js';
import type { State } from './states.js';

/** The response bodies of every source of a state, as the exporter receives them. */
export interface Bodies {
  readonly flowControl: Buffer;
  readonly urlGroups: Buffer;
  readonly stats: readonly { readonly databaseId: string; readonly body: Buffer }[];
}

/** The Authorization headers of the simulator's demo credentials, as the exporter sends them. */
export const AUTHORIZATION = {
  qstash: `Bearer ${DEMO_QSTASH_TOKEN}`,
  management: `Basic ${Buffer.from(`${DEMO_EMAIL}:${DEMO_API_KEY}`).toString('base64')}`,
} as const;

/** GETs every body of `state` from the simulator once. */
export async function fetchBodies(simulator: Simulator, state: State): Promise<Bodies> {
  const get = async (path: string, authorization: string): Promise<Buffer> => {
    const response = await fetch(`${simulator.url}${path}`, { headers: { authorization } });
    if (response.status !== 200) throw new Error(`simulator answered ${response.status} for ${path}`);
    return Buffer.from(await response.arrayBuffer());
  };
  const { qstash: bearer, management: basic } = AUTHORIZATION;
  const stats = [];
  for (const databaseId of state.databases) {
    stats.push({ databaseId, body: await get(`/v2/redis/stats/${databaseId}`, basic) });
  }
  return {
    flowControl: await get('/v2/flowControl/', bearer),
    urlGroups: await get('/v2/topics', bearer),
    stats,
  };
}

const ACCOUNT = 'bench';
const LIMIT = 1_000_000;

/** bytes → exported sample lines, exactly as a poll does it (decode, JSON.parse, validate, map, render). */
export const ingest = {
  async flowControl(series: DataSeries, body: Buffer): Promise<number> {
    const { entries } = await parseFlowControl(JSON.parse(body.toString('utf8')));
    const samples = flowControlSamples(ACCOUNT, entries, LIMIT);
    series.replace('flow_control', samples);
    return samples.length;
  },
  async urlGroups(series: DataSeries, body: Buffer): Promise<number> {
    const { entries } = await parseUrlGroups(JSON.parse(body.toString('utf8')));
    const samples = urlGroupSamples(ACCOUNT, entries, LIMIT);
    series.replace('url_groups', samples);
    return samples.length;
  },
  stats(series: DataSeries, databaseId: string, body: Buffer): number {
    const stats = parseRedisStats(JSON.parse(body.toString('utf8')));
    const samples = redisStatsSamples(ACCOUNT, databaseId, stats);
    series.replace(`redis_stats/${databaseId}`, samples);
    return samples.length;
  },
};

/**
 * The `n`th ERROR event of a log window (`time` its time), with the fields a real one carries
 * (headers, bodies, error text, callbacks): seven destinations, five queues, four codes.
 */
export function logWindowEvent(n: number, time: number): Record<string, unknown> {
  return {
    time,
    messageId: `msg_${n}`,
    state: 'ERROR',
    url: `https://api${n % 7}.example.com/hooks/${n}?token=${DEMO_EVENT_SECRET}`,
    queueName: `queue-${n % 5}`,
    responseStatus: [500, 502, 503, 404][n % 4],
    header: { Authorization: [`Bearer ${DEMO_EVENT_SECRET}`] },
    body: Buffer.from(`{"order":${n}}`).toString('base64'),
    error: `failed (${DEMO_EVENT_SECRET})`,
    callback: `https://cb.example.com/?k=${DEMO_EVENT_SECRET}`,
    maxRetries: 3,
  };
}

/**
 * A window of the QStash log as `qstash_logs` reads it (issue 30): 100 pages of 100 ERROR events
 * ({@link logWindowEvent}), newest first.
 */
export function logWindowBodies(pages = 100, perPage = 100): Buffer[] {
  const bodies: Buffer[] = [];
  for (let page = 0; page < pages; page++) {
    const logs = Array.from({ length: perPage }, (_, i) => {
      const n = page * perPage + i;
      return logWindowEvent(n, 1_800_000_000_000 - n);
    });
    bodies.push(Buffer.from(JSON.stringify({ cursor: page + 1 < pages ? `c${page + 1}` : '', logs })));
  }
  return bodies;
}

/** The pages of a log window → the counters' samples, as a poll of `qstash_logs` does (minus HTTP). */
export async function ingestLogWindow(bodies: readonly Buffer[]): Promise<number> {
  // With the settle window on (the default 30 s): the whole window is within it, so every event's
  // identity is kept (max_event_pages 100, as the event window phase polls), the most the window
  // costs; the clock is the window's, so nothing is refused.
  const scan = new EventScan(startState(0), {
    perSecond: 1000,
    maxSeries: 500,
    ordered: true,
    settle: 30_000,
    now: 1_800_000_000_000,
    maxKept: 100 * 100,
    timedIdentity: true,
  });
  const { documented } = QSTASH_LOGS;
  for (const body of bodies) {
    const json = JSON.parse(body.toString('utf8')) as { logs: unknown[] };
    const { entries } = await parseListing(json, documented.path, {
      entry: documented.entry,
      toEntry: documented.toEntry,
      read: documented.read,
      list: () => ({ list: json.logs, at: 'logs' }),
    });
    scan.read(entries.map((event) => countedLogEvent(event, 'ERROR')));
  }
  const { state } = scan.finish(true);
  const ERRORS = {
    name: 'upstash_qstash_delivery_errors_total',
    help: '',
    divisor: 1,
    type: 'counter',
  } as const;
  return counterSamples(
    ERRORS,
    ACCOUNT,
    ['destination', 'url_group', 'queue', 'schedule_id', 'code'],
    state.series,
  ).length;
}

/** Ingest CPU of one body against a bare `JSON.parse` of the same bytes. */
export interface IngestFigure {
  readonly label: string;
  readonly bytes: number;
  readonly series: number;
  readonly jsonParseMicros: number;
  readonly ingestMicros: number;
}

/** The ingest figures of one state's bodies: one stats payload, the flow-control body, the whole state. */
export async function measureIngest(
  state: State,
  bodies: Bodies,
  options: { budgetMs: number; rounds: number },
): Promise<{
  statsPayload: IngestFigure;
  flowControl: IngestFigure;
  urlGroups: IngestFigure;
  whole: IngestFigure;
  logWindow: IngestFigure;
}> {
  const series = new DataSeries(DATA_METRICS);
  const first = bodies.stats[0]!;
  const one = async (
    label: string,
    body: Buffer,
    run: () => number | Promise<number>,
  ): Promise<IngestFigure> => {
    const count = await run();
    const [jsonParseMicros = NaN, ingestMicros = NaN] = await cpuMicrosPerCall(
      [() => JSON.parse(body.toString('utf8')) as unknown, run],
      options,
    );
    return { label, bytes: body.length, series: count, jsonParseMicros, ingestMicros };
  };
  const all = [bodies.flowControl, bodies.urlGroups, ...bodies.stats.map((s) => s.body)];
  const wholeRun = async (): Promise<number> =>
    (await ingest.flowControl(series, bodies.flowControl)) +
    (await ingest.urlGroups(series, bodies.urlGroups)) +
    bodies.stats.reduce((n, s) => n + ingest.stats(series, s.databaseId, s.body), 0);
  const wholeCount = await wholeRun();
  const [wholeParse = NaN, wholeIngest = NaN] = await cpuMicrosPerCall(
    [
      () => {
        for (const body of all) JSON.parse(body.toString('utf8'));
      },
      wholeRun,
    ],
    options,
  );
  return {
    statsPayload: await one(`stats payload (${first.body.length} B)`, first.body, () =>
      ingest.stats(series, first.databaseId, first.body),
    ),
    flowControl: await one(`flow control, ${state.flowControlKeys} keys`, bodies.flowControl, () =>
      ingest.flowControl(series, bodies.flowControl),
    ),
    urlGroups: await one(`URL groups, ${state.urlGroups} groups`, bodies.urlGroups, () =>
      ingest.urlGroups(series, bodies.urlGroups),
    ),
    whole: {
      label: `whole state ${state.label}`,
      bytes: all.reduce((n, b) => n + b.length, 0),
      series: wholeCount,
      jsonParseMicros: wholeParse,
      ingestMicros: wholeIngest,
    },
    logWindow: await logWindowFigure(options),
  };
}

/** The log window of {@link logWindowBodies}: 10,000 events in 100 pages, against JSON.parse of them. */
export async function logWindowFigure(options: { budgetMs: number; rounds: number }): Promise<IngestFigure> {
  const bodies = logWindowBodies();
  const series = await ingestLogWindow(bodies);
  const [jsonParseMicros = NaN, ingestMicros = NaN] = await cpuMicrosPerCall(
    [
      () => {
        for (const body of bodies) JSON.parse(body.toString('utf8'));
      },
      () => ingestLogWindow(bodies),
    ],
    options,
  );
  return {
    label: 'QStash log window, 10,000 events in 100 pages',
    bytes: bodies.reduce((n, b) => n + b.length, 0),
    series,
    jsonParseMicros,
    ingestMicros,
  };
}
