import { describe, expect, test } from 'vitest';
import type { DemoRun } from '../../src/demo/simulator.js';
import { sumOf, type ParsedSample } from '../helpers/exposition-parser.js';
import { after, scrapeUntil, useHarness, type Harness } from '../helpers/harness.js';

// The event rule against events whose fields change after they are first listed, and against caps
// that would cut a ratio apart (docs/metrics.md, Event counters), through the real exporter polling the
// simulator over HTTP: a run re-stamped with a later completion is the same run; an audit event listed
// again a second later is the same event; a failure function is counted in its final state; a
// destination is under its own name, or under `other`, in both families of its error ratio; a state
// is never folded into `other`.

const start = useHarness({ qstashSources: [], managementSources: [] });

const polls = (s: ParsedSample[], source: string) => sumOf(s, 'upstash_exporter_polls_total', { source });

/**
 * Starts the exporter with the simulator's event lists empty from now on (what the demo served at
 * the first polls is counted before the test's events), and waits two polls of `source`.
 */
async function quiet(options: Parameters<typeof start>[0], source: string): Promise<Harness> {
  const h = await start(options);
  h.sim.setQstashLogs([]);
  h.sim.setWorkflowRuns([]);
  h.sim.setAuditLog([]);
  await pollsLater(h, source, 2);
  return h;
}

/** Scrapes until `source` was polled `more` more times than now. */
async function pollsLater(h: Harness, source: string, more: number): Promise<ParsedSample[]> {
  const from = polls((await h.scrape()).samples, source);
  return scrapeUntil(h, `${more} more polls of ${source}`, (s) => polls(s, source) >= from + more);
}

const WORKFLOW = 'https://app.example.com/api/workflows/checkout';

const run = (id: string, createdAt: number, completedAt: number, more: Partial<DemoRun> = {}): DemoRun => ({
  id,
  url: WORKFLOW,
  createdAt,
  completedAt,
  outcome: 'RUN_SUCCESS',
  ...more,
});

const finished = (s: ParsedSample[], workflow = WORKFLOW) =>
  sumOf(s, 'upstash_workflow_runs_finished_total', { account: 'eu', workflow });
const durations = (s: ParsedSample[]) =>
  sumOf(s, 'upstash_workflow_run_duration_seconds_count', { account: 'eu', workflow: WORKFLOW });
const callbacks = (s: ParsedSample[], state: string, workflow?: string) =>
  sumOf(s, 'upstash_workflow_failure_callbacks_total', {
    account: 'eu',
    state,
    ...(workflow !== undefined && { workflow }),
  });

describe('events whose fields change after they are first listed', () => {
  test('a run re-stamped with a later completion is the same run: counted once, one duration', async () => {
    const h = await quiet({ qstashSources: ['workflow_runs'] }, 'workflow_runs');
    const begun = Date.now();
    await after(begun, 3_000);
    const created = begun + 500;
    h.sim.setWorkflowRuns([run('wfr-1', created, created + 1_000)]);
    await scrapeUntil(h, 'the run counted', (s) => finished(s) >= 1);
    // Listed again, inside the settle window, with a completion 700 ms later.
    h.sim.setWorkflowRuns([run('wfr-1', created, created + 1_700)]);
    const samples = await pollsLater(h, 'workflow_runs', 4);
    expect(finished(samples)).toBe(1);
    expect(durations(samples)).toBe(1);
  });

  test('an audit event listed again one second later (one log_id) is counted once', async () => {
    const h = await quiet({ managementSources: ['audit_logs'] }, 'audit_logs');
    const begun = Date.now();
    await after(begun, 3_000);
    const second = Math.floor(Date.now() / 1000) - 1;
    const audit = { log_id: 'audit-1', action_string: 'Update Database', source: 'CONSOLE' };
    h.sim.setAuditLog([{ ...audit, timestamp: second }]);
    const total = (s: ParsedSample[]) => sumOf(s, 'upstash_audit_events_total', { account: 'main' });
    const base = total((await h.scrape()).samples);
    await scrapeUntil(h, 'the audit event counted', (s) => total(s) > base);
    await after(second * 1000, 2_000);
    h.sim.setAuditLog([{ ...audit, timestamp: second + 1 }]);
    expect(total(await pollsLater(h, 'audit_logs', 4)) - base).toBe(1);
  });

  test('a failure function is counted in its final state, once, after CALLBACK_INPROGRESS', async () => {
    const h = await quiet({ qstashSources: ['workflow_runs'] }, 'workflow_runs');
    const begun = Date.now();
    await after(begun, 3_000);
    const created = begun + 500;
    const failed = (state: string) =>
      run('wfr-failed', created, created + 1_000, { outcome: 'RUN_FAILED', failureFunction: state });
    // Right after the run failed, its failure callback is still being delivered.
    h.sim.setWorkflowRuns([failed('CALLBACK_INPROGRESS')]);
    await scrapeUntil(h, 'the failed run counted', (s) => finished(s) >= 1);
    await pollsLater(h, 'workflow_runs', 2);
    h.sim.setWorkflowRuns([failed('CALLBACK_FAIL')]);
    const samples = await pollsLater(h, 'workflow_runs', 9);
    expect(callbacks(samples, 'CALLBACK_FAIL', WORKFLOW)).toBe(1);
    expect(finished(samples)).toBe(1);
  });
});

describe('caps that would cut a ratio apart', () => {
  test('a destination is under its own name in both families of its error ratio, or in neither', async () => {
    const h = await quiet(
      { qstashSources: ['qstash_logs', 'qstash_deliveries'], limits: { maxEventSeries: 3 } },
      'qstash_deliveries',
    );
    const begun = Date.now();
    await after(begun, 4_000);
    const FAILING = 'https://failing.example.com';
    const first = begun + 500;
    const before = (await h.scrape()).samples;
    const delivered = sumOf(before, 'upstash_qstash_deliveries_total', { account: 'eu' });
    const errored = sumOf(before, 'upstash_qstash_delivery_errors_total', { account: 'eu' });
    const event = (time: number, messageId: string, state: string, url: string) => ({
      time,
      messageId,
      state,
      url: `${url}/hook`,
      responseStatus: state === 'ERROR' ? 500 : 200,
    });
    // The failing destination: 400 deliveries and 4 errors, older than one delivery to each of five
    // other destinations, which are read first (newest first) and would fill a cap of their own.
    h.sim.setQstashLogs([
      ...Array.from({ length: 400 }, (_, i) => event(first + i * 5, `msg-d-${i}`, 'DELIVERED', FAILING)),
      ...Array.from({ length: 4 }, (_, i) => event(first + i * 500 + 1, `msg-e-${i}`, 'ERROR', FAILING)),
      ...Array.from({ length: 5 }, (_, i) =>
        event(first + 2_500 + i, `msg-ok-${i}`, 'DELIVERED', `https://ok-${i}.example.com`),
      ),
    ]);
    // Beside what the demo served before (its opening's delivery and error).
    const samples = await scrapeUntil(
      h,
      'every event counted',
      (s) =>
        sumOf(s, 'upstash_qstash_deliveries_total', { account: 'eu' }) >= delivered + 405 &&
        sumOf(s, 'upstash_qstash_delivery_errors_total', { account: 'eu' }) >= errored + 4,
    );
    const errors = sumOf(samples, 'upstash_qstash_delivery_errors_total', { destination: FAILING });
    const deliveries = sumOf(samples, 'upstash_qstash_deliveries_total', { destination: FAILING });
    expect(errors + deliveries).toBeGreaterThan(0);
    expect(deliveries > 0, `errors ${errors}, deliveries ${deliveries} under its name`).toBe(errors > 0);
  });

  test('state="CALLBACK_FAIL" is never folded into other by max_event_series', async () => {
    const h = await quiet(
      { qstashSources: ['workflow_runs'], limits: { maxEventSeries: 2 } },
      'workflow_runs',
    );
    const begun = Date.now();
    const base = (await h.scrape()).samples;
    const all = (s: ParsedSample[]) => sumOf(s, 'upstash_workflow_runs_finished_total', { account: 'eu' });
    await after(begun, 3_000);
    const created = begun + 500;
    const failed = (n: number, state: string, at: number) => ({
      ...run(`wfr-${n}`, at, at + 500, { outcome: 'RUN_FAILED', failureFunction: state }),
      url: `https://app.example.com/api/workflows/w${n}`,
    });
    // Three workflows whose callbacks succeed, listed first (newest first), then one that fails.
    h.sim.setWorkflowRuns([
      failed(1, 'CALLBACK_SUCCESS', created + 300),
      failed(2, 'CALLBACK_SUCCESS', created + 200),
      failed(3, 'CALLBACK_SUCCESS', created + 100),
      failed(4, 'CALLBACK_FAIL', created),
    ]);
    const samples = await scrapeUntil(h, 'the four runs counted', (s) => all(s) >= all(base) + 4);
    expect(callbacks(samples, 'CALLBACK_FAIL') - callbacks(base, 'CALLBACK_FAIL')).toBe(1);
    expect(callbacks(samples, 'other')).toBe(callbacks(base, 'other'));
  });
});
