import { afterEach, describe, expect, it } from 'vitest';
import {
  DEMO_DESTINATIONS,
  DEMO_QSTASH_TOKEN,
  startSimulator,
  type Simulator,
} from '../../src/demo/simulator.js';

// The simulated event lists answer as Upstash does: both paths, newest first, paged by cursor, the
// QStash list under `logs` on the documented path and `events` on the SDK's.

const NOW = 1_800_000_000_000;
let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.stop();
  sim = undefined;
});

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${sim!.url}${path}`, {
    headers: { authorization: `Bearer ${DEMO_QSTASH_TOKEN}` },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('the simulated QStash log and workflow runs', () => {
  it('pages the log newest first on both paths, under logs and events', async () => {
    sim = await startSimulator({ frozen: true, now: () => NOW });
    const times: number[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const { status, body } = await get(
        `/v2/logs?state=ERROR&fromDate=${NOW - 3_600_000}&count=100${cursor === undefined ? '' : `&cursor=${cursor}`}`,
      );
      expect(status).toBe(200);
      const logs = body.logs as { time: number; state: string }[];
      expect(logs.length).toBeLessThanOrEqual(100);
      for (const log of logs) expect(log.state).toBe('ERROR');
      times.push(...logs.map((l) => l.time));
      cursor = body.cursor as string | undefined;
      if (cursor === undefined) break;
    }
    expect(times.length).toBeGreaterThan(300);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(new Set(times.map(String)).size).toBeLessThan(times.length); // some share a millisecond
    const sdk = await get(`/v2/events?state=ERROR&fromDate=${NOW - 3_600_000}&count=100`);
    expect((sdk.body.events as unknown[]).length).toBe(100);
    expect(sdk.body.logs).toBeUndefined();
  });

  it('writes the time of the events it is told in another unit, each ordered and filtered by its true time', async () => {
    sim = await startSimulator({ frozen: true, now: () => NOW });
    const event = (time: number, messageId: string) => ({
      time,
      messageId,
      state: 'ERROR',
      url: 'https://a.example',
    });
    sim.setQstashLogs([
      event(NOW - 3_000, 'old'),
      event(NOW - 2_500, 'sec'),
      event(NOW - 2_000, 'micro'),
      event(NOW - 1_000, 'new'),
    ]);
    sim.setEventTimeUnits({ sec: 's', micro: 'us' });
    const page = async (from: number) =>
      (
        (await get(`/v2/logs?state=ERROR&fromDate=${from}`)).body.logs as {
          time: number;
          messageId: string;
        }[]
      ).map((e) => [e.messageId, e.time]);
    expect(await page(NOW - 2_600)).toEqual([
      ['new', NOW - 1_000],
      ['micro', (NOW - 2_000) * 1000],
      ['sec', Math.floor((NOW - 2_500) / 1000)],
    ]);
    sim.setEventTimeUnits(null);
    expect(await page(NOW - 2_600)).toContainEqual(['sec', NOW - 2_500]);
  });

  it('serves runs in run mode only, 10 a page, the stuck one in progress', async () => {
    sim = await startSimulator({ frozen: true, now: () => NOW });
    expect((await get('/v2/workflows/logs?state=RUN_SUCCESS')).status).toBe(400);
    const started = await get('/v2/workflows/events?groupBy=workflowRunId&state=RUN_STARTED');
    const runs = started.body.runs as { workflowRunId: string; workflowState: string }[];
    expect(runs.map((r) => r.workflowRunId)).toContain('wfr_demo_stuck');
    const failed = await get(
      `/v2/workflows/logs?groupBy=workflowRunId&state=RUN_FAILED&fromDate=${NOW - 8 * 3_600_000}`,
    );
    expect((failed.body.runs as unknown[]).length).toBe(10);
    expect(failed.body.cursor).toBeDefined();
  });

  it('opens at the first read: one ERROR and one FAILED delivery and a finished run, dated then; none when frozen', async () => {
    let now = NOW;
    sim = await startSimulator({ now: () => now });
    now = NOW + 700;
    // What an exporter that began polling at NOW + 500 asks for first (fromDate = W).
    const errors = (await get(`/v2/logs?state=ERROR&fromDate=${NOW + 500}&count=100`)).body.logs as {
      time: number;
      messageId: string;
    }[];
    expect(errors).toEqual([expect.objectContaining({ time: NOW + 700, messageId: 'msg_demo_opening' })]);
    now = NOW + 900;
    const failed = (await get(`/v2/events?state=FAILED&fromDate=${NOW + 500}&count=100`)).body.events;
    expect(failed).toEqual([expect.objectContaining({ time: NOW + 700, state: 'FAILED' })]);
    const runs = (
      await get(`/v2/workflows/logs?groupBy=workflowRunId&state=RUN_SUCCESS&fromDate=${NOW - 60_000}`)
    ).body.runs as Record<string, unknown>[];
    expect(runs.find((run) => run.workflowRunId === 'wfr_demo_opening')).toMatchObject({
      workflowRunCreatedAt: NOW,
      workflowRunCompletedAt: NOW + 700,
      workflowState: 'RUN_SUCCESS',
    });
    await sim.stop();

    sim = await startSimulator({ frozen: true, now: () => NOW });
    const frozen = (await get(`/v2/logs?state=ERROR&fromDate=${NOW}&count=100`)).body.logs as unknown[];
    expect(frozen.filter((e) => (e as { messageId: string }).messageId === 'msg_demo_opening')).toEqual([]);
    const frozenRuns = (await get(`/v2/workflows/logs?groupBy=workflowRunId&state=RUN_SUCCESS`)).body
      .runs as { workflowRunId: string }[];
    expect(frozenRuns.map((run) => run.workflowRunId)).not.toContain('wfr_demo_opening');
  });

  it('delivers steadily beside the errors: one destination above 5 %, the others below', async () => {
    sim = await startSimulator({ frozen: true, now: () => NOW });
    const counts = new Map<string, { errors: number; delivered: number }>();
    for (const state of ['ERROR', 'DELIVERED'] as const) {
      let cursor: string | undefined;
      for (let page = 0; page < 100; page++) {
        const { body } = await get(
          `/v2/events?state=${state}&fromDate=${NOW - 1_200_000}&count=100${cursor === undefined ? '' : `&cursor=${cursor}`}`,
        );
        for (const e of body.events as { url: string; state: string; error?: string }[]) {
          expect(e.state).toBe(state);
          // A delivery has no error text (it carries the response's status, as Upstash's does).
          if (state === 'DELIVERED') expect(e.error).toBeUndefined();
          const count = counts.get(e.url) ?? { errors: 0, delivered: 0 };
          if (state === 'ERROR') count.errors++;
          else count.delivered++;
          counts.set(e.url, count);
        }
        cursor = body.cursor as string | undefined;
        if (cursor === undefined) break;
      }
    }
    const ratio = (url: string): number => {
      const { errors = 0, delivered = 0 } = counts.get(url) ?? {};
      return errors / (errors + delivered);
    };
    const [orders, billing, nightly, gone] = DEMO_DESTINATIONS;
    expect(ratio(orders.url)).toBeGreaterThan(0.05);
    expect(ratio(billing.url)).toBeLessThan(0.05);
    expect(ratio(nightly.url)).toBeLessThan(0.05);
    // Billing delivers about 12 messages a slot of 10 s, steadily: 1440 in 20 minutes.
    expect(counts.get(billing.url)?.delivered).toBeGreaterThan(1300);
    expect(counts.get(gone.url)?.delivered ?? 0).toBe(0);
  });

  it('turns a destination failing from the time asked and back, leaving what came before', async () => {
    let now = NOW;
    sim = await startSimulator({ now: () => now });
    const billing = DEMO_DESTINATIONS[1].url;
    const states = async (from: number, to: number) => {
      const tally = { ERROR: 0, DELIVERED: 0 };
      for (const state of ['ERROR', 'DELIVERED'] as const) {
        const { body } = await get(`/v2/logs?state=${state}&fromDate=${from}&toDate=${to}&count=100`);
        tally[state] = (body.logs as { url: string }[]).filter((e) => e.url === billing).length;
      }
      return tally;
    };
    const before = await states(NOW - 60_000, NOW);
    sim.setDestinationFailing(billing, 0.5);
    now = NOW + 60_000;
    // The minute before the fault reads as it did; the minute after fails about half its deliveries.
    expect(await states(NOW - 60_000, NOW)).toEqual(before);
    const failing = await states(NOW + 1, NOW + 60_000);
    expect(failing.ERROR / (failing.ERROR + failing.DELIVERED)).toBeGreaterThan(0.3);
    sim.setDestinationFailing(billing, null);
    now = NOW + 120_000;
    expect(await states(NOW + 1, NOW + 60_000)).toEqual(failing);
    const healed = await states(NOW + 60_001, NOW + 120_000);
    expect(healed.ERROR / (healed.ERROR + healed.DELIVERED)).toBeLessThan(0.1);
    expect(() => sim?.setDestinationFailing('https://elsewhere.example.com/', 0.5)).toThrow(
      'not a simulated destination',
    );
  });

  it('failed runs carry a failure function with its state, as Upstash spells it; some have none', async () => {
    sim = await startSimulator({ frozen: true, now: () => NOW });
    const failureFunctions: (Record<string, unknown> | undefined)[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const { body } = await get(
        `/v2/workflows/logs?groupBy=workflowRunId&state=RUN_FAILED&fromDate=${NOW - 8 * 3_600_000}${cursor === undefined ? '' : `&cursor=${cursor}`}`,
      );
      for (const run of body.runs as { failureFunction?: Record<string, unknown> }[])
        failureFunctions.push(run.failureFunction);
      cursor = body.cursor as string | undefined;
      if (cursor === undefined) break;
    }
    const states = new Set(failureFunctions.map((f) => (f === undefined ? 'none' : String(f.state))));
    expect(states).toEqual(new Set(['none', 'CALLBACK_SUCCESS', 'CALLBACK_FAIL', 'CALLBACK_INPROGRESS']));
    // An override's failed run: a failure function that succeeded unless told otherwise.
    sim.setWorkflowRuns([
      {
        id: 'r1',
        url: 'https://a.example.com/',
        createdAt: NOW - 9,
        completedAt: NOW - 5,
        outcome: 'RUN_FAILED',
      },
      {
        id: 'r2',
        url: 'https://a.example.com/',
        createdAt: NOW - 9,
        completedAt: NOW - 5,
        outcome: 'RUN_FAILED',
        failureFunction: 'CALLBACK_FAIL',
      },
      {
        id: 'r3',
        url: 'https://a.example.com/',
        createdAt: NOW - 9,
        completedAt: NOW - 5,
        outcome: 'RUN_FAILED',
        failureFunction: null,
      },
    ]);
    const runs = (await get('/v2/workflows/logs?groupBy=workflowRunId&state=RUN_FAILED')).body.runs as {
      workflowRunId: string;
      failureFunction?: { state: string };
    }[];
    expect(runs.map((r) => [r.workflowRunId, r.failureFunction?.state ?? 'none']).sort()).toEqual([
      ['r1', 'CALLBACK_SUCCESS'],
      ['r2', 'CALLBACK_FAIL'],
      ['r3', 'none'],
    ]);
  });
});
