import { describe, expect, it } from 'vitest';
import { DEMO_EVENT_CALLER_IP, DEMO_EVENT_SECRET, type DemoRun } from '../../src/demo/simulator.js';
import { valueOf, type ParsedSample } from '../helpers/exposition-parser.js';
import { eventually, leakedSecret, useHarness, type Harness } from '../helpers/harness.js';

// qstash_logs and workflow_runs end to end: the real exporter (createApp) polls the simulator every
// second and is scraped over HTTP; the simulator serves events written out here, so every count
// below is worked out by hand from them.

const SECRET_URL = `https://api.example.com/hooks/a?token=${DEMO_EVENT_SECRET}`;
const API = 'https://api.example.com';

/** A QStash log event with the secrets real ones carry. */
function log(time: number, messageId: string, state: string, fields: Record<string, unknown>) {
  return {
    time,
    messageId,
    state,
    header: { Authorization: [`Bearer ${DEMO_EVENT_SECRET}`] },
    body: DEMO_EVENT_SECRET,
    responseBody: DEMO_EVENT_SECRET,
    error: `failed ${DEMO_EVENT_SECRET}`,
    callerIp: DEMO_EVENT_CALLER_IP,
    ...fields,
  };
}

const errors = (s: ParsedSample[], labels: Record<string, string>) =>
  valueOf(s, 'upstash_qstash_delivery_errors_total', { account: 'eu', ...labels });

const start = useHarness({ qstashSources: ['qstash_logs', 'workflow_runs'] });

/** Scrapes until `check` holds, after the given number of further polls of `route` at least. */
async function afterPolls<T>(
  harness: Harness,
  route: 'qstash_events' | 'qstash_logs',
  polls: number,
  check: (s: ParsedSample[]) => T | undefined,
) {
  const before = harness.sim.requests(route);
  return eventually(`${polls} more polls`, async () => {
    if (harness.sim.requests(route) < before + polls * 2) return undefined;
    return check((await harness.scrape()).samples);
  });
}

describe('qstash_logs end to end', () => {
  it('counts each event once by destination, queue, URL group, schedule and code; the same after more polls; a late event at W too', async () => {
    const harness = await start();
    // After the start: W is the time the exporter started, and history before it is not counted.
    const T = Date.now() + 1500;
    const events = [
      log(T - 60_000, 'm0', 'ERROR', { url: SECRET_URL, responseStatus: 500 }), // before the start
      log(T, 'm1', 'ERROR', { url: SECRET_URL, queueName: 'orders', responseStatus: 500 }),
      log(T, 'm2', 'ERROR', { url: `${API}/other/path`, queueName: 'orders', responseStatus: 500 }),
      log(T + 1, 'm1', 'ERROR', { url: SECRET_URL, queueName: 'orders', responseStatus: 502 }),
      log(T + 1, 'm4', 'ERROR', {
        url: `https://u:${DEMO_EVENT_SECRET}@b.example.net:8443/x`,
        topicName: 'billing',
      }),
      log(T + 2, 'm1', 'FAILED', { url: SECRET_URL, queueName: 'orders', scheduleId: 'scd_1' }),
    ];
    harness.sim.setQstashLogs(events);
    // Every event is in the past once the FAILED one (the newest) is, and the ERRORs are read first in
    // a poll: wait for the poll after, then every count holds.
    const first = await eventually('the events counted', async () => {
      const s = (await harness.scrape()).samples;
      const total = s
        .filter((x) => x.name === 'upstash_qstash_delivery_errors_total')
        .reduce((sum, x) => sum + x.value, 0);
      return total >= 4 && valueOf(s, 'upstash_qstash_deliveries_failed_total', { account: 'eu' }) === 1
        ? s
        : undefined;
    });
    const expected = (s: ParsedSample[]) => {
      const base = { destination: API, url_group: '', queue: 'orders', schedule_id: '' };
      expect(errors(s, { ...base, code: '500' })).toBe(2);
      expect(errors(s, { ...base, code: '502' })).toBe(1);
      expect(
        errors(s, {
          destination: 'https://b.example.net:8443',
          url_group: 'billing',
          queue: '',
          schedule_id: '',
          code: '',
        }),
      ).toBe(1);
      expect(s.filter((x) => x.name === 'upstash_qstash_delivery_errors_total')).toHaveLength(3);
      expect(valueOf(s, 'upstash_qstash_deliveries_failed_total', { ...base, schedule_id: 'scd_1' })).toBe(1);
      expect(valueOf(s, 'upstash_qstash_logs_scan_complete', { account: 'eu', state: 'ERROR' })).toBe(1);
      expect(valueOf(s, 'upstash_qstash_logs_unread_seconds_total', { account: 'eu', state: 'ERROR' })).toBe(
        0,
      );
    };
    expected(first);
    // Three more polls read the window again from W: nothing counts twice.
    const later = await afterPolls(harness, 'qstash_logs', 3, (s) => s);
    expected(later);
    expect(valueOf(later, 'upstash_qstash_logs_watermark_timestamp_seconds', { state: 'ERROR' })).toBe(
      (T + 1) / 1000,
    );
    expect(valueOf(later, 'upstash_qstash_logs_watermark_timestamp_seconds', { state: 'FAILED' })).toBe(
      (T + 2) / 1000,
    );
    // An event that shows up late at exactly W is counted once.
    harness.sim.setQstashLogs([
      ...events,
      log(T + 1, 'm5', 'ERROR', { url: SECRET_URL, queueName: 'orders', responseStatus: 502 }),
    ]);
    const late = await eventually('the late event counted', async () => {
      const s = (await harness.scrape()).samples;
      return errors(s, { destination: API, url_group: '', queue: 'orders', schedule_id: '', code: '502' }) ===
        2
        ? s
        : undefined;
    });
    expect(late).toBeDefined();
    const again = await afterPolls(harness, 'qstash_logs', 2, (s) => s);
    expect(
      errors(again, { destination: API, url_group: '', queue: 'orders', schedule_id: '', code: '502' }),
    ).toBe(2);
    // Nothing of the bodies' secrets anywhere.
    expect(leakedSecret(harness.logs.join(''))).toBeUndefined();
    expect(leakedSecret((await harness.get('/metrics')).body)).toBeUndefined();
    expect(leakedSecret((await harness.get('/')).body)).toBeUndefined();
  });

  it('a reload that keeps the entry keeps W and the counters; one that removes it starts over', async () => {
    const harness = await start({ qstashSources: ['qstash_logs'] });
    const T = Date.now() + 1000;
    harness.sim.setQstashLogs([
      log(T, 'm1', 'FAILED', { url: SECRET_URL }),
      log(T, 'm2', 'FAILED', { url: SECRET_URL }),
    ]);
    const failed = (s: ParsedSample[]) =>
      valueOf(s, 'upstash_qstash_deliveries_failed_total', { account: 'eu' });
    await eventually('both counted', async () =>
      failed((await harness.scrape()).samples) === 2 ? true : undefined,
    );
    // A new interval for the entry: the same entry, the same watermark and counters.
    const [eu] = harness.config.qstash;
    const slower = { cron: '*/2 * * * * *', intervalMs: 2000 };
    await harness.app.reload({
      ...harness.config,
      qstash: [{ ...eu!, ownSchedules: { ...eu!.ownSchedules, events: slower } }],
    });
    const after = await afterPolls(harness, 'qstash_logs', 2, (s) => s);
    expect(failed(after)).toBe(2);
    expect(valueOf(after, 'upstash_qstash_logs_watermark_timestamp_seconds', { state: 'FAILED' })).toBe(
      T / 1000,
    );
    // Removed, then back: it starts at the time it came back, and the old events are history.
    await harness.app.reload({ ...harness.config, qstash: [] });
    await harness.app.reload(harness.config);
    // The entry's units are new: until their first poll is published they have no series. Requests
    // alone do not say that (the removed entry's last poll may still have been answered), so wait
    // for the watermark, which each of their polls publishes with the counters.
    const watermark = (s: ParsedSample[]) =>
      valueOf(s, 'upstash_qstash_logs_watermark_timestamp_seconds', { state: 'FAILED' });
    const again = await afterPolls(harness, 'qstash_logs', 2, (s) =>
      watermark(s) === undefined ? undefined : s,
    );
    expect(failed(again)).toBeUndefined();
    expect(watermark(again)).toBeGreaterThan(T / 1000);
  });

  it('a source removed by one reload and listed again by another starts afresh at that reload', async () => {
    const harness = await start({ qstashSources: ['flow_control', 'qstash_logs'] });
    const T = Date.now();
    const first = [1, 2, 3].map((n) => log(T, `m${n}`, 'FAILED', { url: SECRET_URL }));
    harness.sim.setQstashLogs(first);
    const failed = (s: ParsedSample[]) =>
      valueOf(s, 'upstash_qstash_deliveries_failed_total', { account: 'eu' });
    const watermark = (s: ParsedSample[]) =>
      valueOf(s, 'upstash_qstash_logs_watermark_timestamp_seconds', { state: 'FAILED' });
    await eventually('three counted', async () =>
      failed((await harness.scrape()).samples) === 3 ? true : undefined,
    );
    // The entry stays (flow_control), its qstash_logs goes; five fail while it is not configured.
    const [eu] = harness.config.qstash;
    await harness.app.reload({ ...harness.config, qstash: [{ ...eu!, sources: ['flow_control'] }] });
    expect(failed((await harness.scrape()).samples)).toBeUndefined();
    const absent = Date.now();
    const meanwhile = [4, 5, 6, 7, 8].map((n) => log(absent, `m${n}`, 'FAILED', { url: SECRET_URL }));
    harness.sim.setQstashLogs([...first, ...meanwhile]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const back = Date.now();
    await harness.app.reload(harness.config);
    const again = await afterPolls(harness, 'qstash_logs', 2, (s) =>
      watermark(s) === undefined ? undefined : s,
    );
    // Neither the three counted before nor the five of its absence: its W is the reload's time.
    expect(failed(again)).toBeUndefined();
    expect(watermark(again)).toBeGreaterThanOrEqual(back / 1000);
    // And it counts what comes after.
    harness.sim.setQstashLogs([...first, ...meanwhile, log(Date.now(), 'm9', 'FAILED', { url: SECRET_URL })]);
    const counted = await eventually('the new one counted', async () => {
      const s = (await harness.scrape()).samples;
      return failed(s) === undefined ? undefined : s;
    });
    expect(failed(counted)).toBe(1);
  });

  it('reads the SDK path after a 404 on the documented one, says so once, and counts both requests', async () => {
    const harness = await start({ qstashSources: ['qstash_logs'] });
    harness.sim.setFault('qstash_logs', { kind: 'status', status: 404 });
    const T = Date.now() + 1000;
    harness.sim.setQstashLogs([log(T, 'm1', 'FAILED', { url: SECRET_URL })]);
    const s = await eventually('the event counted on the SDK path', async () => {
      const samples = (await harness.scrape()).samples;
      return valueOf(samples, 'upstash_qstash_deliveries_failed_total', { account: 'eu' }) === 1
        ? samples
        : undefined;
    });
    const documented = harness.sim.requests('qstash_logs');
    await afterPolls(harness, 'qstash_events', 2, () => true);
    // From then on only the SDK path: the documented one is not asked again.
    expect(harness.sim.requests('qstash_logs')).toBe(documented);
    expect(documented).toBeGreaterThanOrEqual(1);
    expect(
      valueOf(s, 'upstash_exporter_api_requests_total', { api: 'qstash', code: '404' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      valueOf(s, 'upstash_exporter_api_requests_total', { api: 'qstash', code: '200' }),
    ).toBeGreaterThanOrEqual(2);
    expect(harness.logs.filter((line) => line.includes('reading the SDK path'))).toHaveLength(1);
  });

  it('a burst beyond the page cap costs the cap in requests and says what it did not read', async () => {
    const harness = await start({
      qstashSources: ['qstash_logs'],
      limits: { maxEventPages: 3 },
      intervalSeconds: 2,
    });
    const T = Date.now() + 500;
    // 100,000 events over ten seconds, newest last.
    const burst = Array.from({ length: 100_000 }, (_, i) =>
      log(T + Math.floor(i / 10), `b${i}`, 'ERROR', { url: SECRET_URL, responseStatus: 500 }),
    );
    harness.sim.setQstashLogs(burst);
    const s = await eventually(
      'a capped poll',
      async () => {
        const samples = (await harness.scrape()).samples;
        return valueOf(samples, 'upstash_qstash_logs_scan_complete', { account: 'eu', state: 'ERROR' }) === 0
          ? samples
          : undefined;
      },
      120_000,
    );
    const unread = valueOf(s, 'upstash_qstash_logs_unread_seconds_total', { account: 'eu', state: 'ERROR' })!;
    const counted = errors(s, { destination: API, url_group: '', queue: '', schedule_id: '', code: '500' })!;
    // A poll reads at most the cap's 3 pages of ERROR (300 events) and one page of FAILED, and says
    // the rest of its window unread.
    const polls = valueOf(s, 'upstash_exporter_polls_total', { source: 'qstash_logs', account: 'eu' })!;
    expect(counted).toBeLessThanOrEqual(300 * polls);
    expect(counted).toBeGreaterThanOrEqual(300);
    expect(unread).toBeGreaterThan(0);
    expect(harness.sim.requests('qstash_logs')).toBeLessThanOrEqual(4 * (polls + 1));
  });
});

describe('workflow_runs end to end', () => {
  const runs = (T: number): DemoRun[] => [
    {
      id: 'r1',
      url: `https://app.example.com/wf/a?x=${DEMO_EVENT_SECRET}`,
      createdAt: T - 5000,
      completedAt: T + 1000,
      outcome: 'RUN_SUCCESS',
    },
    {
      id: 'r2',
      url: 'https://app.example.com/wf/a',
      createdAt: T - 1000,
      completedAt: T + 2000,
      outcome: 'RUN_FAILED',
    },
    // Longer than the lookback: missed under the creation reading, counted under the events one.
    {
      id: 'r3',
      url: 'https://app.example.com/wf/b',
      createdAt: T - 7_200_000,
      completedAt: T + 500,
      outcome: 'RUN_SUCCESS',
    },
    {
      id: 'r4',
      url: `https://u:${DEMO_EVENT_SECRET}@app.example.com/wf/c#f`,
      createdAt: T - 7_200_000,
      completedAt: undefined,
      outcome: 'RUN_SUCCESS',
    },
    // Finished before the start: not counted.
    {
      id: 'r5',
      url: 'https://app.example.com/wf/a',
      createdAt: T - 20_000,
      completedAt: T - 10_000,
      outcome: 'RUN_SUCCESS',
    },
  ];

  for (const reading of ['created', 'events'] as const)
    it(`counts finished runs once with their durations, and the stuck one in progress (fromDate read as ${reading})`, async () => {
      const harness = await start({ qstashSources: ['workflow_runs'] });
      harness.sim.setWorkflowFromDate(reading);
      const T = Date.now() + 1500;
      harness.sim.setWorkflowRuns(runs(T));
      const wf = (s: ParsedSample[], name: string, labels: Record<string, string>) =>
        valueOf(s, name, { account: 'eu', ...labels });
      const s = await eventually('the runs counted', async () => {
        const samples = (await harness.scrape()).samples;
        return wf(samples, 'upstash_workflow_runs_finished_total', {
          workflow: 'https://app.example.com/wf/a',
          state: 'failed',
        }) === 1
          ? samples
          : undefined;
      });
      {
        const samples = s;
        const a = { workflow: 'https://app.example.com/wf/a' };
        expect(wf(samples, 'upstash_workflow_runs_finished_total', { ...a, state: 'success' })).toBe(1);
        expect(wf(samples, 'upstash_workflow_run_duration_seconds_sum', { ...a, state: 'success' })).toBe(6);
        expect(
          wf(samples, 'upstash_workflow_run_duration_seconds_bucket', { ...a, state: 'success', le: '5' }),
        ).toBe(0);
        expect(
          wf(samples, 'upstash_workflow_run_duration_seconds_bucket', { ...a, state: 'success', le: '15' }),
        ).toBe(1);
        expect(
          wf(samples, 'upstash_workflow_run_duration_seconds_bucket', { ...a, state: 'failed', le: '5' }),
        ).toBe(1);
        expect(wf(samples, 'upstash_workflow_run_duration_seconds_count', { ...a, state: 'failed' })).toBe(1);
        const c = { workflow: 'https://app.example.com/wf/c' };
        expect(wf(samples, 'upstash_workflow_runs_in_progress', c)).toBe(1);
        expect(wf(samples, 'upstash_workflow_oldest_run_start_timestamp_seconds', c)).toBe(
          (T - 7_200_000) / 1000,
        );
      }
      // Let more polls pass: nothing counts twice, whichever reading.
      const before = harness.sim.requests('workflow_logs');
      const after = await eventually('more polls', async () =>
        harness.sim.requests('workflow_logs') >= before + 8 ? (await harness.scrape()).samples : undefined,
      );
      const b = wf(after, 'upstash_workflow_runs_finished_total', {
        workflow: 'https://app.example.com/wf/b',
        state: 'success',
      });
      expect(b).toBe(reading === 'events' ? 1 : undefined);
      expect(
        wf(after, 'upstash_workflow_runs_finished_total', {
          workflow: 'https://app.example.com/wf/a',
          state: 'success',
        }),
      ).toBe(1);
      expect(leakedSecret((await harness.get('/metrics')).body)).toBeUndefined();
      expect(leakedSecret(harness.logs.join(''))).toBeUndefined();
    });
});
