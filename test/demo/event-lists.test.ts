import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_QSTASH_TOKEN, startSimulator, type Simulator } from '../../src/demo/simulator.js';

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
});
