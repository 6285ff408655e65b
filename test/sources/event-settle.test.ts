import { afterEach, describe, expect, it } from 'vitest';
import { type DemoRun } from '../../src/demo/simulator.js';
import { auditLogs } from '../../src/sources/audit-logs.js';
import { EventStore, type EventEntry } from '../../src/sources/event-store.js';
import { qstashLogs } from '../../src/sources/qstash-logs.js';
import type { SourceResult } from '../../src/sources/source.js';
import { workflowRuns } from '../../src/sources/workflow-runs.js';
import { simulatedSources, type SimulatedSources } from '../helpers/source-poll.js';

// The event rule against answers that would fool it (docs/metrics.md, Event counters), each source
// polled over HTTP from the simulator: events that become visible late, events dated in the future,
// fractional times, and a capped poll that counts nothing.

let open: SimulatedSources | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** The exporter began polling ten minutes ago. */
const START = Date.now() - 600_000;

/** The query of every request the simulator received, by route. */
let asked: { route: string; query: URLSearchParams }[] = [];

/** The `fromDate` of the last request of `route` for `state`. */
function fromDateOf(route: string, state: string): string | null | undefined {
  return asked
    .filter((a) => a.route === route && a.query.get('state') === state)
    .at(-1)
    ?.query.get('fromDate');
}

async function setUp(now?: () => number): Promise<SimulatedSources> {
  asked = [];
  open = await simulatedSources({
    ...(now !== undefined && { now }),
    onRequest: (route, path) => asked.push({ route, query: new URL(`http://x${path}`).searchParams }),
  });
  return open;
}

const entry = (): EventEntry => new EventStore({ now: () => START }).of('eu');

/** The sum of a metric's samples (its `_count` for a histogram), optionally of one `state`. */
function total(result: SourceResult, name: string, state?: string): number {
  return result.samples
    .filter((s) => s.metric.name === name && (s.suffix === undefined || s.suffix === '_count'))
    .filter((s) => state === undefined || s.labels.some(([k, v]) => k === 'state' && v === state))
    .reduce((sum, s) => sum + s.value, 0);
}

const log = (time: number, id: string) => ({
  time,
  messageId: id,
  state: 'ERROR',
  url: 'https://api.example.com/hook',
  responseStatus: 500,
});

const run = (id: string, createdAt: number, completedAt: number): DemoRun => ({
  id,
  url: 'https://app.example.com/a',
  createdAt,
  completedAt,
  outcome: 'RUN_SUCCESS',
});

const ERRORS = 'upstash_qstash_delivery_errors_total';
const FINISHED = 'upstash_workflow_runs_finished_total';
const AUDIT = 'upstash_audit_events_total';

describe('late events: the settle window', () => {
  it('qstash_logs counts events 5 s and 20 s late once each, and not one 2 minutes late', async () => {
    const { sim, poll } = await setUp();
    const events = entry();
    const W = Date.now() - 1000;
    const first = [log(W, 'm1')];
    sim.setQstashLogs(first);
    expect(total(await poll(qstashLogs, events), ERRORS)).toBe(1);
    // Three events become visible after the newer one was read: dated 5 s, 20 s and 2 min before it.
    sim.setQstashLogs([
      ...first,
      log(W - 5000, 'late5'),
      log(W - 20_000, 'late20'),
      log(W - 120_000, 'late120'),
    ]);
    const second = await poll(qstashLogs, events);
    expect(total(second, ERRORS)).toBe(3);
    // The poll asked from W − 30 s, a whole number.
    expect(fromDateOf('qstash_logs', 'ERROR')).toBe(String(W - 30_000));
    // Read again: nothing counts twice; the settle window is not unread.
    const third = await poll(qstashLogs, events);
    expect(total(third, ERRORS)).toBe(3);
    expect(total(third, 'upstash_qstash_logs_unread_seconds_total')).toBe(0);
    expect(total(third, 'upstash_qstash_logs_scan_complete', 'ERROR')).toBe(1);
    // With the window off (event_settle 0s), a late event is not counted: W alone.
    sim.setQstashLogs([...first, log(W - 5000, 'late5'), log(W - 3000, 'late3')]);
    expect(total(await poll(qstashLogs, events, { eventSettle: 0 }), ERRORS)).toBe(3);
  });

  it('the late fault of the simulator: events shown 150 s late count within the window, not beyond', async () => {
    // The simulator's clock is the test's: two polls, the second 150 s later.
    let clock = Date.now() - 130_000;
    const { sim, poll } = await setUp(() => clock);
    const events = entry();
    const T = clock - 1000;
    // Oldest first, every other event (the 1st, 3rd, 5th) shows only 150 s after its time.
    sim.setEventDating({ late: { ms: 150_000, every: 2 } });
    sim.setQstashLogs([
      log(T - 120_000, 'late120'),
      log(T - 60_000, 'onA'),
      log(T - 20_000, 'late20'),
      log(T - 10_000, 'onB'),
      log(T - 5000, 'late5'),
      log(T, 'onW'),
    ]);
    // The three on time are counted, W = T.
    expect(total(await poll(qstashLogs, events), ERRORS)).toBe(3);
    clock += 150_000;
    // The late ones show: 5 s and 20 s below W, within the window (counted once); 120 s, beyond it.
    expect(total(await poll(qstashLogs, events), ERRORS)).toBe(5);
    expect(total(await poll(qstashLogs, events), ERRORS)).toBe(5);
  });

  it('workflow_runs and audit_logs count a late event once', async () => {
    const { sim, poll } = await setUp();
    const runs = entry();
    const T = Date.now() - 2000;
    sim.setWorkflowRuns([run('r1', T - 1000, T)]);
    expect(total(await poll(workflowRuns, runs), FINISHED)).toBe(1);
    sim.setWorkflowRuns([run('r1', T - 1000, T), run('r2', T - 30_000, T - 20_000)]);
    expect(total(await poll(workflowRuns, runs), FINISHED)).toBe(2);
    expect(total(await poll(workflowRuns, runs), FINISHED)).toBe(2);

    const audit = entry();
    const second = Math.floor(Date.now() / 1000) - 2;
    const event = (id: string, timestamp: number) => ({
      log_id: id,
      timestamp,
      action_string: 'Delete Database',
      source: 'CONSOLE',
    });
    sim.setAuditLog([event('a1', second)]);
    expect(total(await poll(auditLogs, audit), AUDIT)).toBe(1);
    sim.setAuditLog([event('a1', second), event('a2', second - 20), event('a3', second - 120)]);
    expect(total(await poll(auditLogs, audit), AUDIT)).toBe(2);
    expect(total(await poll(auditLogs, audit), AUDIT)).toBe(2);
  });
});

describe('future times', () => {
  it('qstash_logs: an ERROR time in microseconds is refused, W stays, the next events count', async () => {
    const { sim, poll } = await setUp();
    sim.setEventDating('as-given');
    const events = entry();
    const now = Date.now();
    sim.setQstashLogs([log(now * 1000, 'micro'), log(now - 1000, 'm1')]);
    const first = await poll(qstashLogs, events);
    expect(total(first, ERRORS)).toBe(1);
    expect(first.rejectedFields).toContain('time');
    expect(first.warnings).toContain(
      "1 event dated more than 5 minutes ahead of the exporter's clock not counted",
    );
    expect(total(first, 'upstash_qstash_logs_watermark_timestamp_seconds', 'ERROR')).toBe(
      (now - 1000) / 1000,
    );
    sim.setQstashLogs([log(now * 1000, 'micro'), log(now - 1000, 'm1'), log(now, 'm2')]);
    const second = await poll(qstashLogs, events);
    expect(total(second, ERRORS)).toBe(2);
    // Listed again, it is the event already refused: said once, by the first poll.
    expect(second.rejectedFields).not.toContain('time');
  });

  it('workflow_runs: a run completed 10^12 ms after its creation is refused, the next runs count', async () => {
    const { sim, poll } = await setUp();
    sim.setEventDating('as-given');
    const events = entry();
    const T = Date.now() - 1000;
    const runs = [run('far', T - 5000, T - 5000 + 1e12), run('r1', T - 2000, T)];
    sim.setWorkflowRuns(runs);
    const first = await poll(workflowRuns, events);
    expect(total(first, FINISHED)).toBe(1);
    expect(first.rejectedFields).toContain('time');
    sim.setWorkflowRuns([...runs, run('r2', T - 1000, T + 500)]);
    expect(total(await poll(workflowRuns, events), FINISHED)).toBe(2);
  });

  it('audit_logs: a timestamp in milliseconds is refused, the next events count', async () => {
    const { sim, poll } = await setUp();
    const events = entry();
    const second = Math.floor(Date.now() / 1000) - 1;
    const event = (id: string, timestamp: number) => ({
      log_id: id,
      timestamp,
      action_string: 'Delete Database',
      source: 'CONSOLE',
    });
    sim.setAuditLog([event('ms', Date.now()), event('a1', second)]);
    const first = await poll(auditLogs, events);
    expect(total(first, AUDIT)).toBe(1);
    expect(first.rejectedFields).toContain('time');
    sim.setAuditLog([event('ms', Date.now()), event('a1', second), event('a2', second + 1)]);
    expect(total(await poll(auditLogs, events), AUDIT)).toBe(2);
  });
});

describe('whole numbers', () => {
  it('workflow_runs: a fractional completion time is floored, and the next fromDate is whole', async () => {
    const { sim, poll } = await setUp();
    const events = entry();
    const T = Date.now() - 1000;
    sim.setWorkflowRuns([run('half', T - 2000, T + 0.5)]);
    expect(total(await poll(workflowRuns, events), FINISHED)).toBe(1);
    sim.setWorkflowRuns([run('half', T - 2000, T + 0.5), run('next', T - 1000, T + 200)]);
    // Before, fromDate was T + 0.5 − settle − lookback: refused with 400 (int64), the source down.
    const second = await poll(workflowRuns, events);
    expect(total(second, FINISHED)).toBe(2);
    expect(fromDateOf('workflow_logs', 'RUN_SUCCESS')).toMatch(/^\d+$/);
    for (const { query } of asked) expect(query.get('fromDate') ?? '0').toMatch(/^\d+$/);
  });
});

describe('whole numbers, the audit log', () => {
  it('audit_logs: a fractional timestamp is floored: its second is the watermark, counted once', async () => {
    const { sim, poll } = await setUp();
    const events = entry();
    const second = Math.floor(Date.now() / 1000) - 2;
    sim.setAuditLog([
      { log_id: 'half', timestamp: second + 0.5, action_string: 'Delete Database', source: 'CONSOLE' },
    ]);
    const first = await poll(auditLogs, events);
    expect(total(first, AUDIT)).toBe(1);
    expect(total(first, 'upstash_audit_log_watermark_timestamp_seconds', 'all')).toBe(second);
    expect(total(await poll(auditLogs, events), AUDIT)).toBe(1);
  });
});

describe('whole numbers, QStash', () => {
  it('qstash_logs: a fractional time is floored (the page is not refused), fromDate whole', async () => {
    const { sim, poll } = await setUp();
    const events = entry();
    const T = Date.now() - 1000;
    sim.setQstashLogs([log(T + 0.5, 'half')]);
    const first = await poll(qstashLogs, events);
    expect(total(first, ERRORS)).toBe(1);
    expect(total(first, 'upstash_qstash_logs_watermark_timestamp_seconds', 'ERROR')).toBe(T / 1000);
    expect(total(await poll(qstashLogs, events), ERRORS)).toBe(1);
    expect(fromDateOf('qstash_logs', 'ERROR')).toBe(String(T - 30_000));
  });
});

describe('a capped poll says its gap', () => {
  it('workflow_runs: a capped poll that counts nothing adds its whole window to unread', async () => {
    const { sim, poll } = await setUp();
    const events = entry();
    // 105 runs finished in the lookback before the start, newest by creation; one run created before
    // them all finishes after W: it is on page 11, past the cap of 10 pages.
    const runs = Array.from({ length: 105 }, (_, k) => run(`old${k}`, START - 200_000 + k, START - 60_000));
    sim.setWorkflowRuns([...runs, run('after', START - 300_000, START + 1000)]);
    const before = Date.now();
    const capped = await poll(workflowRuns, events);
    expect(total(capped, FINISHED)).toBe(0);
    expect(total(capped, 'upstash_workflow_runs_scan_complete', 'RUN_SUCCESS')).toBe(0);
    const unread = total(capped, 'upstash_workflow_runs_unread_seconds_total', 'RUN_SUCCESS');
    // The whole window, from W (the start) to the poll's start.
    expect(unread).toBeGreaterThanOrEqual((before - START) / 1000 - 1);
    expect(unread).toBeLessThanOrEqual((Date.now() - START) / 1000);
    expect(capped.warnings?.[0]).toMatch(
      /^scan stopped at max_event_pages \(10 pages\) for RUN_SUCCESS: \d+ s/,
    );
  });
});
