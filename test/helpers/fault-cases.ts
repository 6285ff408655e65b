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

export interface SourceCase {
  readonly labels: Record<string, string>;
  /** A data series the source produces, to see its values kept and dropped. */
  readonly data: { name: string; labels: Record<string, string> };
}

export const SOURCES: readonly SourceCase[] = [
  {
    labels: { source: 'flow_control', account: 'eu', database_id: '', qstash_id: '', index_id: '' },
    data: { name: 'upstash_qstash_flow_control_keys', labels: { account: 'eu' } },
  },
  {
    labels: { source: 'url_groups', account: 'eu', database_id: '', qstash_id: '', index_id: '' },
    data: { name: 'upstash_qstash_url_groups', labels: { account: 'eu' } },
  },
  {
    labels: { source: 'databases', account: 'main', database_id: '', qstash_id: '', index_id: '' },
    data: { name: 'upstash_redis_databases', labels: { account: 'main' } },
  },
  ...DATABASES.map((id) => ({
    labels: { source: 'redis_stats', account: 'main', database_id: id },
    data: { name: 'upstash_redis_connections', labels: { account: 'main', database_id: id } },
  })),
  {
    labels: { source: 'queues', account: 'eu', database_id: '', qstash_id: '', index_id: '' },
    data: { name: 'upstash_qstash_queues', labels: { account: 'eu' } },
  },
  {
    labels: { source: 'schedules', account: 'eu', database_id: '', qstash_id: '', index_id: '' },
    data: { name: 'upstash_qstash_schedules_omitted', labels: { account: 'eu' } },
  },
  // Every page of a DLQ meets the fault: the first one fails the poll.
  {
    labels: { source: 'dlq', account: 'eu', database_id: '', qstash_id: '' },
    data: { name: 'upstash_qstash_dlq_scanned_messages', labels: { account: 'eu' } },
  },
  {
    labels: { source: 'workflow_dlq', account: 'eu', database_id: '', qstash_id: '' },
    data: { name: 'upstash_qstash_workflow_dlq_scan_complete', labels: { account: 'eu' } },
  },
  // Both paths of the event sources meet the fault (a 404 on the documented one reads the SDK's).
  {
    labels: { source: 'qstash_logs', account: 'eu', database_id: '', qstash_id: '' },
    data: { name: 'upstash_qstash_logs_scan_complete', labels: { account: 'eu', state: 'ERROR' } },
  },
  {
    labels: { source: 'qstash_deliveries', account: 'eu', database_id: '', qstash_id: '' },
    data: { name: 'upstash_qstash_logs_scan_complete', labels: { account: 'eu', state: 'DELIVERED' } },
  },
  {
    labels: { source: 'workflow_runs', account: 'eu', database_id: '', qstash_id: '' },
    data: { name: 'upstash_workflow_runs_scan_complete', labels: { account: 'eu', state: 'RUN_FAILED' } },
  },
  {
    labels: { source: 'global_parallelism', account: 'eu', database_id: '', qstash_id: '', index_id: '' },
    data: { name: 'upstash_qstash_global_parallelism_max', labels: { account: 'eu' } },
  },
  {
    labels: { source: 'qstash_users', account: 'main', database_id: '', qstash_id: '', index_id: '' },
    data: {
      name: 'upstash_qstash_max_requests_per_day',
      labels: { account: 'main', qstash_id: DEMO_QSTASH_INSTANCES[0]!.id },
    },
  },
  // While the listing fails its last set of instances keeps being polled, and fails the same way.
  ...DEMO_QSTASH_INSTANCES.map(({ id }) => ({
    labels: { source: 'qstash_stats', account: 'main', database_id: '', qstash_id: id },
    data: { name: 'upstash_qstash_dlq_messages', labels: { account: 'main', qstash_id: id } },
  })),
  ...DATABASES.map((id) => ({
    labels: { source: 'redis_backups', account: 'main', database_id: id },
    data: { name: 'upstash_redis_backups', labels: { account: 'main', database_id: id, state: 'completed' } },
  })),
  // The account's safety (docs/metrics.md, The account's safety): the audit log, the teams (listing, then
  // each team's members: the listing meets the fault first) and QStash's egress ranges.
  {
    labels: { source: 'audit_logs', account: 'main', database_id: '', qstash_id: '', index_id: '' },
    data: { name: 'upstash_audit_log_scan_complete', labels: { account: 'main', state: 'all' } },
  },
  {
    labels: { source: 'teams', account: 'main', database_id: '', qstash_id: '', index_id: '' },
    data: {
      name: 'upstash_team_members',
      labels: { account: 'main', team_id: DEMO_TEAMS[0]!.id, role: 'owner' },
    },
  },
  {
    labels: { source: 'qstash_egress_ips', account: 'main', database_id: '', qstash_id: '', index_id: '' },
    data: { name: 'upstash_qstash_egress_ip_ranges', labels: { account: 'main' } },
  },
  ...(['vector', 'search'] as const).flatMap((product) => [
    {
      labels: { source: `${product}_indexes`, account: 'main', database_id: '', qstash_id: '', index_id: '' },
      data: { name: `upstash_${product}_indexes`, labels: { account: 'main' } },
    },
    // As for the QStash instances: the last listed indexes keep being polled while the listing fails.
    ...(product === 'vector' ? DEMO_VECTOR_INDEXES : DEMO_SEARCH_INDEXES).map(({ id }) => ({
      labels: { source: `${product}_stats`, account: 'main', database_id: '', qstash_id: '', index_id: id },
      data: { name: `upstash_${product}_vectors`, labels: { account: 'main', index_id: id } },
    })),
  ]),
];

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
      // A slot per source: every source meets the fault at once, rather than waiting out each
      // other's timeouts in the default four slots (the matrix is about reasons, not the cap).
      http: { timeoutMs: fault.reason === 'timeout' ? SUBJECT_TIMEOUT_MS : TIMEOUT_MS, concurrency: 16 },
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

    // The failure is counted under its reason, for every source; upstash_up goes to 0 while the last
    // values stay (the first failure lands well within 3 intervals of the last success).
    const failedAt = await eventually(
      `every source failed with ${reason}`,
      async () => {
        const s = await scrape();
        return SOURCES.every((src) => failures(s, src, reason) >= 1) ? s : undefined;
      },
      STEP_MS,
    );
    for (const src of SOURCES) {
      expect(up(failedAt, src), `${src.labels.source} up`).toBe(0);
      const lastSuccess = valueOf(failedAt, 'upstash_exporter_last_success_timestamp_seconds', src.labels);
      expect(lastSuccess).toBeDefined();
      if (Date.now() - lastSuccess! * 1000 < STALE_MS - 1000) {
        expect(data(failedAt, src), `${src.labels.source} keeps its last values`).toBeDefined();
      }
      // No other reason was counted for this fault.
      const others = failedAt
        .filter((x) => x.name === 'upstash_exporter_poll_failures_total')
        .filter(
          (x) =>
            x.labels.source === src.labels.source &&
            x.labels.database_id === src.labels.database_id &&
            x.labels.qstash_id === (src.labels.qstash_id ?? '') &&
            x.labels.index_id === (src.labels.index_id ?? ''),
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
