import { expect } from 'vitest';
import {
  DEMO_QSTASH_INSTANCES,
  DEMO_SEARCH_INDEXES,
  DEMO_TEAMS,
  DEMO_VECTOR_INDEXES,
  type Fault,
} from '../../src/demo/simulator.js';
import { MANAGEMENT_SOURCES, QSTASH_SOURCES } from '../../src/config/types.js';
import type { FailureReason } from '../../src/poller/self-metrics.js';
import type { SourceName } from '../../src/vocabulary.js';
import { valueOf, type ParsedSample } from './exposition-parser.js';
import { DATABASES, eventually, leakedSecret, startHarness, type Harness } from './harness.js';

// The fault matrix (docs/operations.md, What happens under each fault): every source × every fault, against
// the real exporter (createApp) polling the simulator every 2 s and scraped over HTTP. For each fault: the
// failure is counted under the right reason, upstash_up drops to 0, the last values stay for 3 intervals and
// then go, /metrics keeps answering 200 throughout, nothing leaks a credential, and everything recovers once
// the fault is gone. fault-matrix.test.ts (npm test) asserts that; how fast /metrics answered meanwhile is
// timing, asserted by test/load/scrape-during-faults.test.ts (the slow suite).

const INTERVAL_S = 2;
const STALE_MS = 3 * INTERVAL_S * 1000;
/**
 * The HTTP timeout towards Upstash where the timeout is the subject (a hang, a trickle): short, so
 * that the case is quick. The slowest trickled body (43 bytes at 10 B/s) needs 4 s, four times this.
 */
export const SUBJECT_TIMEOUT_MS = 1000;
/**
 * The HTTP timeout elsewhere: not the subject, so long enough that no answer of the simulator, on a
 * machine many times slower than usual, is ever counted as a timeout.
 */
const TIMEOUT_MS = 15_000;
/** How long each step may take to be seen: generous, since a busy machine slows every step. */
const STEP_MS = 90_000;
/** Harnesses running at once; the over-size case runs alone (it makes the simulator write 33 MiB bodies). */
const SLOTS = 4;

/** One unit under the faults: its health labels, and a data series it produces. */
export interface SourceCase {
  readonly labels: Record<string, string>;
  /** A data series the source produces, to see its values kept and dropped. */
  readonly data: { name: string; labels: Record<string, string> };
}

type Account = 'eu' | 'main';
type IdLabel = 'database_id' | 'qstash_id' | 'index_id';

/** A unit of a source, before its `source` label: its account, its ID if it has one, its data series. */
interface UnitCase {
  readonly account: Account;
  readonly id?: { readonly label: IdLabel; readonly value: string };
  readonly data: { name: string; labels: Record<string, string> };
}

/** The one unit of a source polled once per account, seen by a data series `name` of it. */
const once = (account: Account, name: string, labels: Record<string, string> = {}): UnitCase[] => [
  { account, data: { name, labels: { account, ...labels } } },
];

/** Each unit of a source polled per ID of `ids`, each seen by its series `name`. */
const each = (
  ids: readonly (string | { readonly id: string })[],
  label: IdLabel,
  name: string,
  labels: Record<string, string> = {},
): UnitCase[] =>
  ids.map((entry) => {
    const value = typeof entry === 'string' ? entry : entry.id;
    return {
      account: 'main',
      id: { label, value },
      data: { name, labels: { account: 'main', [label]: value, ...labels } },
    };
  });

/**
 * The units of every source, keyed by source name: a source without its cases does not compile.
 * While a listing fails, the last IDs it said keep being polled, and fail the same way; every page
 * of a DLQ meets the fault (the first one fails the poll); both paths of the event sources meet it
 * (a 404 on the documented one reads the SDK's); the teams' listing meets it before the members.
 */
const CASES = {
  flow_control: once('eu', 'upstash_qstash_flow_control_keys'),
  url_groups: once('eu', 'upstash_qstash_url_groups'),
  databases: once('main', 'upstash_redis_databases'),
  redis_stats: each(DATABASES, 'database_id', 'upstash_redis_connections'),
  redis_backups: each(DATABASES, 'database_id', 'upstash_redis_backups', { state: 'completed' }),
  queues: once('eu', 'upstash_qstash_queues'),
  schedules: once('eu', 'upstash_qstash_schedules_omitted'),
  global_parallelism: once('eu', 'upstash_qstash_global_parallelism_max'),
  qstash_users: once('main', 'upstash_qstash_max_requests_per_day', {
    qstash_id: DEMO_QSTASH_INSTANCES[0]!.id,
  }),
  qstash_stats: each(DEMO_QSTASH_INSTANCES, 'qstash_id', 'upstash_qstash_dlq_messages'),
  vector_indexes: once('main', 'upstash_vector_indexes'),
  vector_stats: each(DEMO_VECTOR_INDEXES, 'index_id', 'upstash_vector_vectors'),
  search_indexes: once('main', 'upstash_search_indexes'),
  search_stats: each(DEMO_SEARCH_INDEXES, 'index_id', 'upstash_search_vectors'),
  dlq: once('eu', 'upstash_qstash_dlq_scanned_messages'),
  workflow_dlq: once('eu', 'upstash_qstash_workflow_dlq_scan_complete'),
  qstash_logs: once('eu', 'upstash_qstash_logs_scan_complete', { state: 'ERROR' }),
  qstash_deliveries: once('eu', 'upstash_qstash_logs_scan_complete', { state: 'DELIVERED' }),
  workflow_runs: once('eu', 'upstash_workflow_runs_scan_complete', { state: 'RUN_FAILED' }),
  // The account's safety (docs/metrics.md, The account's safety).
  audit_logs: once('main', 'upstash_audit_log_scan_complete', { state: 'all' }),
  teams: once('main', 'upstash_team_members', { team_id: DEMO_TEAMS[0]!.id, role: 'owner' }),
  qstash_egress_ips: once('main', 'upstash_qstash_egress_ip_ranges'),
} satisfies Readonly<Record<SourceName, readonly UnitCase[]>>;

/** Every unit of every source, with its health labels. */
export const SOURCES: readonly SourceCase[] = (Object.keys(CASES) as SourceName[]).flatMap((source) =>
  CASES[source].map(({ account, id, data }) => ({
    labels: {
      source,
      account,
      database_id: '',
      qstash_id: '',
      index_id: '',
      ...(id !== undefined && { [id.label]: id.value }),
    },
    data,
  })),
);

export interface FaultCase {
  readonly name: string;
  /** `refused`: the simulator stops listening for the duration of the fault. */
  readonly fault: Fault | 'refused';
  readonly reason: FailureReason;
  /** Retry-After longer than an interval: the following ticks must be skipped and counted. */
  readonly skips?: boolean;
  readonly exclusive?: boolean;
}

/** A counting semaphore, so that the concurrent cases share the two cores in small groups. */
let free = SLOTS;
const waiting: (() => void)[] = [];
async function slots(count: number): Promise<() => void> {
  while (free < count) await new Promise<void>((resolve) => waiting.push(resolve));
  free -= count;
  return () => {
    free += count;
    for (const wake of waiting.splice(0)) wake();
  };
}

export const FAULTS: readonly FaultCase[] = [
  { name: '401', fault: { kind: 'status', status: 401 }, reason: 'unauthorized' },
  { name: '403', fault: { kind: 'status', status: 403 }, reason: 'unauthorized' },
  { name: '404', fault: { kind: 'status', status: 404 }, reason: 'not_found' },
  { name: '429 without Retry-After', fault: { kind: 'status', status: 429 }, reason: 'rate_limited' },
  {
    name: '429 with Retry-After',
    fault: { kind: 'status', status: 429, retryAfter: '5' },
    reason: 'rate_limited',
    skips: true,
  },
  { name: '500', fault: { kind: 'status', status: 500 }, reason: 'server_error' },
  {
    name: '502',
    fault: { kind: 'status', status: 502, body: '<html>bad gateway</html>' },
    reason: 'server_error',
  },
  { name: '503', fault: { kind: 'status', status: 503 }, reason: 'server_error' },
  { name: 'hang', fault: { kind: 'hang' }, reason: 'timeout' },
  { name: 'slow body (trickle)', fault: { kind: 'trickle', bytesPerSecond: 10 }, reason: 'timeout' },
  { name: 'connection reset mid-body', fault: { kind: 'reset' }, reason: 'network' },
  { name: 'connection refused', fault: 'refused', reason: 'network' },
  {
    name: 'malformed JSON',
    fault: {
      kind: 'body',
      body: '{"flowControls": [{"flowControlKey": "a", ',
      contentType: 'application/json',
    },
    reason: 'invalid_response',
  },
  { name: 'wrong shape', fault: { kind: 'body', body: '[1, 2, 3]' }, reason: 'invalid_response' },
  {
    name: 'over-size body',
    fault: { kind: 'oversize', bytes: 33 * 1024 * 1024 },
    reason: 'invalid_response',
    exclusive: true,
  },
  {
    name: 'valid body with a wrong Content-Type',
    fault: { kind: 'content-type', contentType: 'text/html; charset=utf-8' },
    reason: 'invalid_response',
  },
];

const failures = (samples: ParsedSample[], source: SourceCase, reason: string): number =>
  valueOf(samples, 'upstash_exporter_poll_failures_total', { ...source.labels, reason }) ?? 0;
const up = (samples: ParsedSample[], source: SourceCase): number | undefined =>
  valueOf(samples, 'upstash_up', source.labels);
const data = (samples: ParsedSample[], source: SourceCase): number | undefined =>
  valueOf(samples, source.data.name, source.data.labels);

/**
 * Runs one fault case against its own harness (sharing the cores in small groups) and returns how
 * long each scrape during the fault took, in ms.
 */
export async function runFaultCase(fault: FaultCase): Promise<number[]> {
  const release = await slots(fault.exclusive === true ? SLOTS : 1);
  try {
    const h = await startHarness({
      intervalSeconds: INTERVAL_S,
      // A slot for each of the 28 units: every unit meets the fault at once, rather than waiting out
      // the others' timeouts for a slot (the matrix is about reasons, not the cap). With 16 slots, a
      // hang queued some units' first failure past 3 intervals after their last success, which drops
      // the values then, as it should; more slots, and the simulator answers the healthy polls slower.
      http: { timeoutMs: fault.reason === 'timeout' ? SUBJECT_TIMEOUT_MS : TIMEOUT_MS, concurrency: 32 },
      qstashSources: QSTASH_SOURCES,
      managementSources: MANAGEMENT_SOURCES,
      // Runs finished in the last minute only: a page or two per state, not the demo's hour.
      workflowLookbackMs: 60_000,
    });
    // One page per DLQ poll: the matrix is about reasons, and every page meets the fault alike
    // (paging has its own tests), so the DLQs add no more requests than a plain source.
    h.sim.setDlq('dlq', { messages: 50 });
    h.sim.setDlq('workflow_dlq', { messages: 50 });
    try {
      return await runCase(h, fault);
    } finally {
      await h.stop();
    }
  } finally {
    release();
  }
}

async function runCase(h: Harness, { fault, reason, skips }: FaultCase): Promise<number[]> {
  {
    const scrapeTimes: number[] = [];
    const scrape = async (): Promise<ParsedSample[]> => {
      const { samples, ms } = await h.scrape();
      scrapeTimes.push(ms);
      return samples;
    };

    // Healthy first: every source up, with data.
    await eventually(
      'every source up',
      async () => {
        const s = await scrape();
        return SOURCES.every((src) => up(s, src) === 1 && data(s, src) !== undefined) ? true : undefined;
      },
      STEP_MS,
    );
    scrapeTimes.length = 0;

    if (fault === 'refused') await h.sim.stop();
    else h.sim.setFault('all', fault);

    // The failure is counted under its reason, for every source, and upstash_up goes to 0 while the
    // last values stay: each unit is watched until a scrape shows it failed with its data still
    // there (docs/operations.md, What happens under each fault). A failed poll keeps them; they go 3
    // intervals after the last success at the earliest (at the end of a poll then in flight), and
    // the first failure ends within about an interval of it, so each unit shows this for seconds.
    const kept = new Set<SourceCase>();
    const failedAt = await eventually(
      `every source failed with ${reason}, its last values kept`,
      async () => {
        const s = await scrape();
        for (const src of SOURCES) {
          if (failures(s, src, reason) >= 1 && up(s, src) === 0 && data(s, src) !== undefined) kept.add(src);
        }
        return kept.size === SOURCES.length && SOURCES.every((src) => failures(s, src, reason) >= 1)
          ? s
          : undefined;
      },
      STEP_MS,
    ).catch((error: unknown) => {
      const missing = SOURCES.filter((src) => !kept.has(src)).map((src) => JSON.stringify(src.labels));
      const what = error instanceof Error ? error.message : String(error);
      throw new Error(
        `${what}; ${missing.length} never seen failed with their last values: ${missing.join(', ')}`,
      );
    });
    for (const src of SOURCES) {
      expect(up(failedAt, src), `${src.labels.source} up`).toBe(0);
      expect(valueOf(failedAt, 'upstash_exporter_last_success_timestamp_seconds', src.labels)).toBeDefined();
      // No other reason was counted for this fault.
      const others = failedAt
        .filter((x) => x.name === 'upstash_exporter_poll_failures_total')
        .filter(
          (x) =>
            x.labels.source === src.labels.source &&
            x.labels.database_id === src.labels.database_id &&
            x.labels.qstash_id === src.labels.qstash_id &&
            x.labels.index_id === src.labels.index_id,
        )
        .filter((x) => x.labels.reason !== reason && x.value > 0);
      expect(others.map((x) => x.labels.reason)).toEqual([]);
    }

    // After 3 intervals without success the data series go; the health series stay.
    const stale = await eventually(
      'data series dropped as stale',
      async () => {
        const s = await scrape();
        return SOURCES.every((src) => data(s, src) === undefined) ? s : undefined;
      },
      STEP_MS,
    );
    for (const src of SOURCES) {
      expect(up(stale, src)).toBe(0);
      const lastSuccess = valueOf(stale, 'upstash_exporter_last_success_timestamp_seconds', src.labels)!;
      // Not before the window is over (a little slack for clock reads on either side).
      expect(Date.now() - lastSuccess * 1000).toBeGreaterThanOrEqual(STALE_MS - 250);
      if (skips === true) {
        expect(valueOf(stale, 'upstash_exporter_polls_skipped_total', src.labels)).toBeGreaterThan(0);
      }
    }

    // /metrics, the landing page and /healthz keep answering during the fault.
    expect((await h.get('/healthz')).status).toBe(200);
    const landing = await h.get('/');
    expect(landing.status).toBe(200);
    expect(landing.body).toContain(reason);
    const during = [...scrapeTimes];

    // Recovery: faults gone, every source comes back with data.
    if (fault === 'refused') await h.sim.restart();
    else h.sim.setFault('all', null);
    const recovered = await eventually(
      'every source recovered',
      async () => {
        const s = await scrape();
        return SOURCES.every((src) => up(s, src) === 1 && data(s, src) !== undefined) ? s : undefined;
      },
      STEP_MS,
    );
    for (const src of SOURCES) expect(failures(recovered, src, reason)).toBeGreaterThanOrEqual(1);

    // Nothing said or shown during all this carries a credential: logs (debug level, every error
    // message of the fault), /metrics and the landing page.
    expect(h.logs.some((line) => line.includes('"poll failed"'))).toBe(true);
    expect(leakedSecret(h.logs.join(''))).toBeUndefined();
    expect(leakedSecret((await h.get('/metrics')).body)).toBeUndefined();
    expect(leakedSecret((await h.get('/')).body)).toBeUndefined();
    return during;
  }
}
