import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_EVENT_SECRET, DEMO_TEAMS, type DemoRun } from '../../src/demo/simulator.js';
import { pollWarnings } from '../../src/poller/warnings.js';
import { auditLogs } from '../../src/sources/audit-logs.js';
import { EventStore, type EventEntry } from '../../src/sources/event-store.js';
import { qstashEgressIps } from '../../src/sources/qstash-egress-ips.js';
import { qstashLogs } from '../../src/sources/qstash-logs.js';
import { teams } from '../../src/sources/teams.js';
import { workflowRuns } from '../../src/sources/workflow-runs.js';
import { simulatedSources, type SimulatedSources } from '../helpers/source-poll.js';

// What the event and account-safety sources say of their data on the landing page
// (PollResult.warnings), polled over HTTP from the simulator: each warning when its condition holds,
// none otherwise, and never a destination, workflow, action or address (counts and caps only).

let open: SimulatedSources | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

/** The exporter began polling a minute ago: the events below are after its start (W). */
const START = Date.now() - 60_000;

async function setUp(): Promise<SimulatedSources> {
  open = await simulatedSources();
  return open;
}

const entry = (): EventEntry => new EventStore({ now: () => START }).of('eu');

/** A log event of a destination (the secret in its URL must never show). */
const logEvent = (
  time: number,
  id: string,
  state: string,
  host: string,
  extra: Record<string, unknown> = {},
) => ({
  time,
  messageId: id,
  state,
  url: `https://${host}/hook?token=${DEMO_EVENT_SECRET}`,
  ...extra,
});

/** Nothing of the upstream values: no URL, host, workflow path, action or address. */
function expectNoValues(warnings: readonly string[] | undefined): void {
  for (const text of warnings ?? []) {
    expect(text).not.toMatch(/https?:|example|\d{1,3}(\.\d{1,3}){3}|Delete|@/);
    expect(text).not.toContain(DEMO_EVENT_SECRET);
  }
}

describe('qstash_logs', () => {
  it('says FAILED deliveries since the start, then since the previous poll, and none when there were none', async () => {
    const { sim, poll } = await setUp();
    const events = entry();
    sim.setQstashLogs([
      logEvent(START + 1000, 'm1', 'ERROR', 'a.example.com', { responseStatus: 500 }),
      logEvent(START + 2000, 'm1', 'FAILED', 'a.example.com'),
      logEvent(START + 3000, 'm2', 'FAILED', 'b.example.com'),
    ]);
    const first = await poll(qstashLogs, events);
    expect(first.warnings).toEqual(['2 deliveries FAILED since the exporter started']);
    expect(first.labelValuesDropped).toBeUndefined();
    expect((await poll(qstashLogs, events)).warnings).toEqual([]);
    sim.setQstashLogs([logEvent(START + 4000, 'm3', 'FAILED', 'a.example.com')]);
    expect((await poll(qstashLogs, events)).warnings).toEqual(['1 delivery FAILED since the previous poll']);
  });

  it('says a scan stopped at max_event_pages with the span left unread, and the events counted under "other"', async () => {
    const { sim, poll } = await setUp();
    // 250 errors 200 ms apart from START + 1 s: two pages of 100 read (the newest), the 50 oldest
    // not, from W (START) to the oldest read, START + 11 s: 11 s unread.
    sim.setQstashLogs(
      Array.from({ length: 250 }, (_, k) =>
        logEvent(START + 1000 + k * 200, `m${k}`, 'ERROR', `host${k % 3}.example.com`, {
          responseStatus: 500,
        }),
      ),
    );
    const capped = await poll(qstashLogs, entry(), { maxEventPages: 2, maxEventSeries: 1 });
    // Of the 200 read (k = 50 to 249), the newest's destination (k % 3 = 0, 67 events) is kept, the
    // 133 of the two others are counted under "other": two destinations folded, each said once.
    expect(capped.labelValuesDropped).toBe(2);
    expect(capped.warnings).toEqual([
      'scan stopped at max_event_pages (2 pages) for ERROR: 11 s of the log not read, its events not counted',
      '133 events counted under "other": max_event_series (1 label set) reached',
    ]);
    expectNoValues(capped.warnings);
    const whole = await poll(qstashLogs, entry());
    expect(whole.warnings).toEqual([]);
  });

  it('leaves a field of the wrong type to the poller, which names the field', async () => {
    const { sim, poll } = await setUp();
    sim.setQstashLogs([
      logEvent(START + 1000, 'm1', 'ERROR', 'a.example.com', { responseStatus: 'five hundred' }),
    ]);
    const result = await poll(qstashLogs, entry());
    expect(result.rejectedFields).toEqual(['responseStatus']);
    expect(
      pollWarnings({
        rejectedFields: result.rejectedFields ?? [],
        labelValuesCut: 0,
        warnings: result.warnings ?? [],
        watched: undefined,
        watchedBefore: undefined,
      }),
    ).toEqual(['field rejected (wrong type upstream, skipped): responseStatus']);
  });
});

describe('workflow_runs', () => {
  const run = (id: string, url: string, outcome: DemoRun['outcome'], completed: boolean): DemoRun => ({
    id,
    url,
    createdAt: START + 1000,
    completedAt: completed ? START + 5000 : undefined,
    outcome,
  });

  it('says failed runs, a scan stopped at the cap, runs in progress past the page cap and past max_event_series', async () => {
    const { sim, poll } = await setUp();
    const events = entry();
    sim.setWorkflowRuns([run('f1', 'https://app.example.com/a', 'RUN_FAILED', true)]);
    const failed = await poll(workflowRuns, events);
    expect(failed.warnings).toEqual(['1 workflow run failed since the exporter started']);
    expect((await poll(workflowRuns, events)).warnings).toEqual([]);

    sim.setWorkflowRuns([
      ...Array.from({ length: 25 }, (_, k) => run(`s${k}`, 'https://app.example.com/a', 'RUN_SUCCESS', true)),
      ...Array.from({ length: 25 }, (_, k) =>
        run(`p${k}`, `https://app.example.com/w${k % 2}`, 'RUN_SUCCESS', false),
      ),
    ]);
    const capped = await poll(workflowRuns, entry(), { maxEventPages: 2, maxEventSeries: 1 });
    // Runs are paged by creation and counted by completion: a capped poll leaves the whole window in
    // doubt, from W (the start) to the poll's start, a minute or more (docs/metrics.md, Event counters).
    const [stopped] = capped.warnings ?? [];
    const seconds = Number(/: (\d+) s of the window/.exec(stopped ?? '')?.[1]);
    expect(seconds).toBeGreaterThanOrEqual(60);
    expect(seconds).toBeLessThan(600);
    expect(capped.warnings).toEqual([
      `scan stopped at max_event_pages (2 pages) for RUN_SUCCESS: ${seconds} s of the window not read, its events not counted`,
      'runs in progress: listing stopped at max_event_pages (2 pages): the counts are lower bounds',
      '1 workflow with runs in progress not exported: max_event_series (1 label set) reached',
    ]);
    expectNoValues(capped.warnings);
    expect((await poll(workflowRuns, entry())).warnings).toEqual([]);
  });
});

describe('the account-safety sources', () => {
  it('audit_logs: the events counted under "other" past max_event_series', async () => {
    const { sim, poll } = await setUp();
    const second = Math.floor(START / 1000) + 5;
    sim.setAuditLog(
      ['Create Database', 'Delete Database', 'Delete Database'].map((action, k) => ({
        log_id: `a${k}`,
        timestamp: second + k,
        action_string: action,
        source: 'CONSOLE',
      })),
    );
    const cut = await poll(auditLogs, entry(), { maxEventSeries: 1 });
    expect(cut.warnings).toEqual(['2 events counted under "other": max_event_series (1 label set) reached']);
    expectNoValues(cut.warnings);
    expect((await poll(auditLogs, entry())).warnings).toEqual([]);
  });

  it('teams: the teams past max_teams, not read', async () => {
    const { poll } = await setUp();
    expect((await poll(teams, entry(), { maxTeams: DEMO_TEAMS.length - 1 })).warnings).toEqual([
      `1 team not read: max_teams (${DEMO_TEAMS.length - 1}) reached, the first by name are`,
    ]);
    expect((await poll(teams, entry())).warnings).toBeUndefined();
  });

  it('qstash_egress_ips: the ranges past 100, not exported one by one', async () => {
    const { sim, poll } = await setUp();
    sim.setEgressRanges(Array.from({ length: 103 }, (_, k) => `10.${k}.0.0/16`));
    const cut = await poll(qstashEgressIps, entry());
    expect(cut.warnings).toEqual([
      '3 ranges not exported one by one: at most 100 are (upstash_qstash_egress_ip_ranges counts them all)',
    ]);
    expectNoValues(cut.warnings);
    sim.setEgressRanges(Array.from({ length: 100 }, (_, k) => `10.${k}.0.0/16`));
    expect((await poll(qstashEgressIps, entry())).warnings).toBeUndefined();
  });
});
