import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/config/types.js';
import { EventStore, type EventEntry } from '../../src/sources/event-store.js';
import type { SourceResult } from '../../src/sources/source.js';
import { workflowRuns } from '../../src/sources/workflow-runs.js';
import { UpstashClient } from '../../src/upstash/client.js';

// upstash_workflow_failure_callbacks_total (docs/metrics.md, Delivery errors and workflow runs): each
// failed run counted once with the run, by what became of its failure function, over HTTP from a fake
// of Upstash's run mode that answers failure functions in every shape seen (an object with its
// state, one without, a string, none) and a secret wherever a real one may carry it.

const SECRET = 'tok-SECRET-ff';
const WORKFLOW = 'https://app.example.com/api/onboarding';

let server: Server | undefined;
let client: UpstashClient | undefined;
afterEach(async () => {
  await client?.close();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
  client = undefined;
});

/** The exporter began polling ten minutes ago. */
const START = Date.now() - 600_000;

/** A finished run of the fake, as Upstash's run mode returns it. */
function run(id: string, state: string, completedAt: number, failureFunction?: unknown) {
  return {
    workflowRunId: id,
    workflowUrl: `${WORKFLOW}?key=${SECRET}`,
    workflowState: state,
    workflowRunCreatedAt: completedAt - 1000,
    workflowRunCompletedAt: completedAt,
    ...(failureFunction !== undefined && { failureFunction }),
  };
}

/** Serves `runs` in run mode, filtered by `state` as Upstash does, all on one page. */
async function fake(runs: () => readonly Record<string, unknown>[]): Promise<string> {
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const state = url.searchParams.get('state');
    response.setHeader('content-type', 'application/json');
    response.end(JSON.stringify({ runs: runs().filter((r) => r.workflowState === state) }));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function poll(baseUrl: string, events: EventEntry): Promise<SourceResult> {
  client ??= new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 1, userAgent: 'test' });
  return workflowRuns.poll({
    client,
    account: {
      name: 'eu',
      baseUrl,
      credentials: { api: 'qstash', token: { reveal: () => 'token' } },
      workflowLookbackMs: DEFAULTS.workflowLookback.defaultMs,
    },
    unit: '',
    limits: DEFAULTS.limits,
    signal: new AbortController().signal,
    deadline: Date.now() + 60_000,
    events,
  });
}

/** Each sample of `name` as `label=value,…` → value. */
function series(result: SourceResult, name: string): Record<string, number> {
  return Object.fromEntries(
    result.samples
      .filter((s) => s.metric.name === name && (s.suffix === undefined || s.suffix === '_count'))
      .map((s) => [s.labels.map(([k, v]) => `${k}=${v}`).join(','), s.value]),
  );
}

describe('workflow_runs: failure callbacks', () => {
  it('counts each failed run once by its failure function state, none and unknown included', async () => {
    const served = [
      run('r1', 'RUN_FAILED', START + 1000, {
        state: 'CALLBACK_FAIL',
        url: `https://cb.example.com/?k=${SECRET}`,
      }),
      run('r2', 'RUN_FAILED', START + 2000, { state: 'CALLBACK_SUCCESS', failHeaders: { auth: [SECRET] } }),
      run('r3', 'RUN_FAILED', START + 3000, { state: 'CALLBACK_FAIL' }),
      run('r4', 'RUN_FAILED', START + 4000),
      run('r5', 'RUN_FAILED', START + 5000, { url: `https://cb.example.com/?k=${SECRET}` }),
      run('r6', 'RUN_FAILED', START + 6000, `https://cb.example.com/?k=${SECRET}`),
      run('r7', 'RUN_SUCCESS', START + 7000, { state: 'CALLBACK_FAIL' }),
    ];
    const baseUrl = await fake(() => served);
    const events = new EventStore({ now: () => START }).of('eu', 'workflow_runs');
    const expected = {
      [`account=eu,workflow=${WORKFLOW},state=CALLBACK_FAIL`]: 2,
      [`account=eu,workflow=${WORKFLOW},state=CALLBACK_SUCCESS`]: 1,
      [`account=eu,workflow=${WORKFLOW},state=none`]: 1,
      [`account=eu,workflow=${WORKFLOW},state=unknown`]: 2,
    };
    const first = await poll(baseUrl, events);
    expect(series(first, 'upstash_workflow_failure_callbacks_total')).toEqual(expected);
    // The failed runs are counted once by workflow, as before, and their durations with them.
    expect(series(first, 'upstash_workflow_runs_finished_total')).toEqual({
      [`account=eu,workflow=${WORKFLOW},state=failed`]: 6,
      [`account=eu,workflow=${WORKFLOW},state=success`]: 1,
    });
    expect(series(first, 'upstash_workflow_run_duration_seconds')).toEqual({
      [`account=eu,workflow=${WORKFLOW},state=failed`]: 6,
      [`account=eu,workflow=${WORKFLOW},state=success`]: 1,
    });
    expect(first.rejectedFields).toEqual([]);
    expect(JSON.stringify(first.samples)).not.toContain(SECRET);
    expect(JSON.stringify(first.samples)).not.toContain('cb.example.com');

    // Read again (the settle window, a reload of the same page): nothing is counted twice; a new
    // failed run is, at once as a run, and as a failure callback once its state is final.
    served.push(run('r8', 'RUN_FAILED', START + 8000, { state: 'CALLBACK_INPROGRESS' }));
    const second = await poll(baseUrl, events);
    expect(series(second, 'upstash_workflow_failure_callbacks_total')).toEqual(expected);
    expect(
      series(second, 'upstash_workflow_runs_finished_total')[`account=eu,workflow=${WORKFLOW},state=failed`],
    ).toBe(7);
    served[served.length - 1] = run('r8', 'RUN_FAILED', START + 8000, { state: 'CALLBACK_FAIL' });
    for (let n = 0; n < 3; n++) {
      const final = await poll(baseUrl, events);
      expect(series(final, 'upstash_workflow_failure_callbacks_total')).toEqual({
        ...expected,
        [`account=eu,workflow=${WORKFLOW},state=CALLBACK_FAIL`]: 3,
      });
      expect(
        series(final, 'upstash_workflow_runs_finished_total')[`account=eu,workflow=${WORKFLOW},state=failed`],
      ).toBe(7);
    }
  });

  it('says on the landing page how many failed runs had their failure function fail, counts only', async () => {
    const served = [
      run('r1', 'RUN_FAILED', START + 1000, { state: 'CALLBACK_FAIL' }),
      run('r2', 'RUN_FAILED', START + 2000, {
        state: 'CALLBACK_FAIL',
        url: `https://cb.example.com/?k=${SECRET}`,
      }),
      run('r3', 'RUN_FAILED', START + 3000, { state: 'CALLBACK_SUCCESS' }),
    ];
    const baseUrl = await fake(() => served);
    const events = new EventStore({ now: () => START }).of('eu', 'workflow_runs');
    const first = await poll(baseUrl, events);
    expect(first.warnings).toEqual([
      '3 workflow runs failed since the exporter started',
      '2 failed workflow runs whose failure function failed since the exporter started',
    ]);
    // Read again, nothing new: nothing said.
    expect((await poll(baseUrl, events)).warnings).toEqual([]);
    // A new failed run whose failure function succeeded is said as failed, not as a failed callback.
    served.push(run('r4', 'RUN_FAILED', START + 4000, { state: 'CALLBACK_SUCCESS' }));
    expect((await poll(baseUrl, events)).warnings).toEqual(['1 workflow run failed since the previous poll']);
    served.push(run('r5', 'RUN_FAILED', START + 5000, { state: 'CALLBACK_FAIL' }));
    const last = await poll(baseUrl, events);
    expect(last.warnings).toEqual([
      '1 workflow run failed since the previous poll',
      '1 failed workflow run whose failure function failed since the previous poll',
    ]);
    expect(JSON.stringify(last.warnings)).not.toContain('example.com');
  });

  it('a run listed again with a later completion time is the run already counted', async () => {
    const first = run('r1', 'RUN_FAILED', START + 1000, { state: 'CALLBACK_FAIL' });
    let served = [first];
    const baseUrl = await fake(() => served);
    const events = new EventStore({ now: () => START }).of('eu', 'workflow_runs');
    await poll(baseUrl, events);
    served = [{ ...first, workflowRunCompletedAt: START + 1700 }];
    const again = await poll(baseUrl, events);
    const once = { [`account=eu,workflow=${WORKFLOW},state=failed`]: 1 };
    expect(series(again, 'upstash_workflow_runs_finished_total')).toEqual(once);
    expect(series(again, 'upstash_workflow_run_duration_seconds')).toEqual(once);
    expect(series(again, 'upstash_workflow_failure_callbacks_total')).toEqual({
      [`account=eu,workflow=${WORKFLOW},state=CALLBACK_FAIL`]: 1,
    });
  });

  it('keeps at most 20 states: spellings Upstash does not name beyond are other, CALLBACK_FAIL never', async () => {
    // Ten runs a page: 40 new spellings over four polls, then a failure function that failed.
    let served: Record<string, unknown>[] = [];
    const baseUrl = await fake(() => served);
    const events = new EventStore({ now: () => START }).of('eu', 'workflow_runs');
    let dropped = 0;
    for (let page = 0; page < 4; page++) {
      served = Array.from({ length: 10 }, (_, k) =>
        run(`o${page * 10 + k}`, 'RUN_FAILED', START + 1000 + page * 10 + k, {
          state: `CALLBACK_ODD_${page * 10 + k}`,
        }),
      );
      dropped += (await poll(baseUrl, events)).labelValuesDropped ?? 0;
    }
    served = [run('f1', 'RUN_FAILED', START + 2000, { state: 'CALLBACK_FAIL' })];
    const result = await poll(baseUrl, events);
    const counted = series(result, 'upstash_workflow_failure_callbacks_total');
    expect(Object.keys(counted)).toHaveLength(22);
    expect(counted[`account=eu,workflow=${WORKFLOW},state=CALLBACK_FAIL`]).toBe(1);
    expect(counted[`account=eu,workflow=${WORKFLOW},state=other`]).toBe(20);
    expect(dropped).toBe(20);
  });

  it('names a failure function of the wrong type as rejected and counts its run under none', async () => {
    const baseUrl = await fake(() => [run('r1', 'RUN_FAILED', START + 1000, 42)]);
    const result = await poll(baseUrl, new EventStore({ now: () => START }).of('eu', 'workflow_runs'));
    expect(result.rejectedFields).toEqual(['failureFunction']);
    expect(series(result, 'upstash_workflow_failure_callbacks_total')).toEqual({
      [`account=eu,workflow=${WORKFLOW},state=none`]: 1,
    });
  });
});
