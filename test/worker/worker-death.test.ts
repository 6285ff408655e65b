import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { startSimulator, type Simulator } from '../../src/demo/simulator.js';
import { createLogger } from '../../src/logger.js';
import { API_KEY, EMAIL, eventually, httpGet, QSTASH_TOKEN, testConfig } from '../helpers/harness.js';

// A worker death forgets nothing (docs/troubleshooting.md, UpstashExporterPollWorkerRestarting). What was
// published survives the worker (values, health series, counters); the polls in flight or started
// since the last publication count a failure of their own (`worker_died`); the restarted worker
// continues from the published counters and event starts; deaths are counted;
// /readyz and the landing page say the truth while the worker is down; a reload is answered once it
// took effect. The worker is the real one with a death injected (test/helpers/dying-poll-worker.ts).

const DYING_WORKER = new URL('../helpers/dying-poll-worker.js', import.meta.url);
const DIED = 'the poll worker died; restarting it, and polling with it';
const SUCCEEDED = 'poll succeeded';
const FLOW = 'source="flow_control",account="eu",database_id="",qstash_id="",index_id=""';

afterEach(() => {
  delete process.env.POLL_WORKER_DEATH;
  delete process.env.POLL_WORKER_DEATH_AFTER_MS;
  delete process.env.POLL_WORKER_DEATH_WHEN;
});

interface Running {
  readonly sim: Simulator;
  readonly app: App;
  readonly logs: Record<string, unknown>[];
  readonly get: (path: string) => Promise<{ status: number; body: string }>;
}

/**
 * A simulator with one database and an exporter polling it every second through the dying worker,
 * created with POLL_WORKER_DEATH = `death`; the variable is cleared once it started, so that the
 * restarted worker is healthy unless the test sets it again.
 */
async function running(
  death: string,
  afterMs: number,
  test: (running: Running) => Promise<void>,
  options: {
    heapMb?: number;
    intervalSeconds?: number;
    when?: string;
    qstashSources?: NonNullable<Parameters<typeof testConfig>[1]>['qstashSources'];
    /** Hears each request of the simulator as it arrives (its route). */
    onRequest?: (route: string) => void;
    /** Runs before the exporter starts (a fault its first polls meet). */
    beforeStart?: (sim: Simulator) => void;
  } = {},
): Promise<void> {
  const sim = await startSimulator({
    qstashToken: QSTASH_TOKEN,
    email: EMAIL,
    apiKey: API_KEY,
    databases: ['db-a'],
    ...(options.onRequest !== undefined && { onRequest: options.onRequest }),
  });
  options.beforeStart?.(sim);
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger('info', {
    write: (line: string) => {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  process.env.POLL_WORKER_DEATH = death;
  process.env.POLL_WORKER_DEATH_AFTER_MS = String(afterMs);
  if (options.when !== undefined) process.env.POLL_WORKER_DEATH_WHEN = options.when;
  const config = testConfig(sim.url, {
    intervalSeconds: options.intervalSeconds ?? 1,
    databases: ['db-a'],
    webEnableLifecycle: true,
    logLevel: 'info',
    ...(options.qstashSources !== undefined && { qstashSources: options.qstashSources }),
  });
  const app = createApp(config, {
    logger,
    version: 'test',
    revision: 'unknown',
    pollWorker: DYING_WORKER,
    ...(options.heapMb !== undefined && {
      pollWorkerLimits: { maxOldGenerationSizeMb: options.heapMb, maxYoungGenerationSizeMb: 8 },
    }),
  });
  try {
    const { port } = await app.start();
    delete process.env.POLL_WORKER_DEATH;
    delete process.env.POLL_WORKER_DEATH_WHEN;
    const get = async (path: string) => httpGet(`http://127.0.0.1:${port}${path}`);
    await test({ sim, app, logs, get });
  } finally {
    await app.stop();
    await sim.stop();
  }
}

/** The value of the first series of `body` matching `pattern` (its first group), NaN if none. */
function value(body: string, pattern: RegExp): number {
  return Number(pattern.exec(body)?.[1] ?? NaN);
}

const polls = (body: string) =>
  value(body, new RegExp(`^upstash_exporter_polls_total\\{${FLOW}\\} (\\d+)$`, 'm'));
const diedFailures = (body: string) =>
  value(
    body,
    new RegExp(`^upstash_exporter_poll_failures_total\\{${FLOW},reason="worker_died"\\} (\\d+)$`, 'm'),
  );
const up = (body: string) => value(body, new RegExp(`^upstash_up\\{${FLOW}\\} (\\d+)$`, 'm'));
const lastSuccess = (body: string) =>
  value(body, new RegExp(`^upstash_exporter_last_success_timestamp_seconds\\{${FLOW}\\} ([0-9.e+]+)$`, 'm'));
const restarts = (body: string) => value(body, /^upstash_exporter_poll_worker_restarts_total (\d+)$/m);
const FLOW_DATA = /^upstash_qstash_flow_control_keys\{account="eu"\} \d+$/m;

/** The test's configuration with the flow-control families denied (metrics.deny). */
function denyingFlowControl(sim: Simulator) {
  return testConfig(sim.url, {
    intervalSeconds: 1,
    databases: ['db-a'],
    webEnableLifecycle: true,
    metrics: { allow: [], deny: ['upstash_qstash_flow_control_.*'] },
  });
}

describe('a poll worker killed mid-poll', () => {
  for (const [how, heapMb] of [
    ['throw', undefined],
    ['oom', 48],
  ] as const) {
    it(`by ${how === 'throw' ? 'an uncaught error' : 'its heap limit'}: forgets nothing, counts worker_died, continues`, async () => {
      // The death comes when the test says (this file appears); polls every 5 s, so that the values
      // outlive the hanging poll (they go stale after 3 intervals without a success).
      const dir = mkdtempSync(join(tmpdir(), 'worker-death-'));
      const trigger = join(dir, 'die');
      await running(
        how,
        0,
        async ({ sim, get }) => {
          await eventually('the first polls published', async () => {
            const body = (await get('/metrics')).body;
            return FLOW_DATA.test(body) && up(body) === 1 ? true : undefined;
          });
          // The next flow_control poll hangs: it is in flight when the worker dies. A poll whose request
          // was answered before the fault can still show as polling now, and end well before the death:
          // the poll waited for is one whose request came after the fault.
          sim.setFault('flow_control', { kind: 'hang' });
          const asked = sim.requests('flow_control');
          const before = await eventually('the hanging poll published as in flight', async () => {
            const row = (await get('/')).body.split('<tbody>').find((part) => part.includes('>flow_control'));
            const hanging = row?.includes('polling now') === true && sim.requests('flow_control') > asked;
            return hanging ? (await get('/metrics')).body : undefined;
          });
          writeFileSync(trigger, '');
          expect(restarts(before)).toBe(0);
          const after = await eventually('the death counted', async () => {
            const body = (await get('/metrics')).body;
            return restarts(body) >= 1 ? body : undefined;
          });
          // What was published survives: the values, the health series, the counters.
          expect(after).toMatch(FLOW_DATA);
          expect(up(after)).toBe(0);
          expect(diedFailures(after)).toBe(1);
          expect(polls(after)).toBeGreaterThanOrEqual(polls(before));
          // The staleness clock too: the last success published before the death stays (the hanging
          // poll cannot have moved it; `before` may be a body a publication older).
          expect(lastSuccess(before)).toBeGreaterThan(0);
          expect(lastSuccess(after)).toBeGreaterThanOrEqual(lastSuccess(before));
          // The restarted worker continues from those counters, and polls again.
          sim.setFault('flow_control', null);
          const resumed = await eventually('the restarted worker polls', async () => {
            const body = (await get('/metrics')).body;
            return up(body) === 1 && polls(body) > polls(after) ? body : undefined;
          });
          expect(diedFailures(resumed)).toBe(1);
          expect(resumed).toMatch(FLOW_DATA);
          expect((await get('/readyz')).status).toBe(200);
        },
        { intervalSeconds: 5, when: trigger, ...(heapMb !== undefined && { heapMb }) },
      );
      rmSync(dir, { recursive: true, force: true });
    }, 90_000);
  }
});

describe('a poll worker that dies', () => {
  it('with a reload pending: the reload is answered once the restarted worker runs it, never 500', async () => {
    await running('exit-on-reload', 0, async ({ sim, app, logs, get }) => {
      await eventually('the first polls published', async () =>
        FLOW_DATA.test((await get('/metrics')).body) ? true : undefined,
      );
      // The worker logs at info, as the serving logger does (its `debug` line is never written).
      expect(logs.some((line) => line.msg === SUCCEEDED)).toBe(false);
      // Another file: the same accounts, with the flow-control families denied, logging at debug.
      const reloaded = await app.reload({ ...denyingFlowControl(sim), logLevel: 'debug' });
      expect(logs.some((line) => line.msg === DIED)).toBe(true);
      expect(reloaded).toEqual({ result: 'applied' });
      // Answered after it took effect: the next scrape shows the new configuration, all of it.
      const body = (await get('/metrics')).body;
      expect(body).not.toContain('upstash_qstash_flow_control_');
      expect((await get('/readyz')).status).toBe(200);
      // The restarted worker logs at the new level too, though it was spawned before the reload applied.
      await eventually('the restarted worker logs at debug', () =>
        logs.some((line) => line.msg === SUCCEEDED) ? true : undefined,
      );
    });
  }, 90_000);

  it('and keeps dying: /readyz and the page say so; a reload in the back-off waits for the restart', async () => {
    await running('throw', 3000, async ({ sim, app, logs, get }) => {
      await eventually('ready', async () => ((await get('/readyz')).status === 200 ? true : undefined));
      // Every worker started from now on dies before it publishes.
      process.env.POLL_WORKER_DEATH = 'exit-at-start';
      await eventually('a second death', () =>
        logs.filter((line) => line.msg === DIED).length >= 2 ? true : undefined,
      );
      const readyz = await get('/readyz');
      expect(readyz.status).toBe(503);
      expect(readyz.body).toBe('the poll worker died and is restarting\n');
      expect((await get('/')).body).toContain('the poll worker died and is restarting');
      let answered = false;
      const reload = app.reload(denyingFlowControl(sim)).finally(() => (answered = true));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      // Not 200 before it applies: no worker runs it yet.
      expect(answered).toBe(false);
      delete process.env.POLL_WORKER_DEATH;
      expect(await reload).toEqual({ result: 'applied' });
      expect((await get('/metrics')).body).not.toContain('upstash_qstash_flow_control_');
      expect((await get('/readyz')).status).toBe(200);
    });
  }, 120_000);
});

describe('a poll worker that dies while the event sources count', () => {
  it('hands their watermarks and counters to the restarted worker: an event counted once stays counted once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'worker-death-'));
    const trigger = join(dir, 'die');
    const LOGS = 'source="qstash_logs",account="eu",database_id="",qstash_id="",index_id=""';
    const errors = (body: string) =>
      value(body, /^upstash_qstash_delivery_errors_total\{account="eu",[^}]*code="502"\} (\d+)$/m);
    const logPolls = (body: string) =>
      value(body, new RegExp(`^upstash_exporter_polls_total\\{${LOGS}\\} (\\d+)$`, 'm'));
    await running(
      'throw',
      0,
      async ({ sim, get }) => {
        // One delivery error after the start (W), served on every poll from now on.
        sim.setQstashLogs([
          {
            time: Date.now(),
            messageId: 'msg-1',
            state: 'ERROR',
            url: 'https://api.example.com/hook',
            responseStatus: 502,
          },
        ]);
        await eventually('the error counted', async () =>
          errors((await get('/metrics')).body) === 1 ? true : undefined,
        );
        writeFileSync(trigger, '');
        const after = await eventually('the death counted', async () => {
          const body = (await get('/metrics')).body;
          return restarts(body) >= 1 ? body : undefined;
        });
        // The restarted worker polls the log again (the same event, at its watermark) and counts
        // nothing twice; without the carried state it would start a new watermark after the event
        // and the counter would vanish.
        const resumed = await eventually('two polls of the log by the restarted worker', async () => {
          const body = (await get('/metrics')).body;
          return logPolls(body) >= logPolls(after) + 2 ? body : undefined;
        });
        expect(errors(resumed)).toBe(1);
      },
      { when: trigger, qstashSources: ['flow_control', 'qstash_logs'] },
    );
    rmSync(dir, { recursive: true, force: true });
  }, 90_000);
});

describe('a poll worker that dies before any event state was published', () => {
  it('hands the start time to the restarted worker: the events since start-up are counted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'worker-death-'));
    const trigger = join(dir, 'die');
    const LOGS = 'source="qstash_logs",account="eu",database_id="",qstash_id="",index_id=""';
    const errors = (body: string) =>
      value(body, /^upstash_qstash_delivery_errors_total\{account="eu",[^}]*code="502"\} (\d+)$/m);
    const serverErrors = (body: string) =>
      value(
        body,
        new RegExp(`^upstash_exporter_poll_failures_total\\{${LOGS},reason="server_error"\\} (\\d+)$`, 'm'),
      );
    await running(
      'throw',
      0,
      async ({ sim, get }) => {
        // Five delivery errors after the start, while /v2/logs answers 503: no poll moves an event state.
        const time = Date.now();
        sim.setQstashLogs(
          [1, 2, 3, 4, 5].map((n) => ({
            time,
            messageId: `msg-${n}`,
            state: 'ERROR',
            url: 'https://api.example.com/hook',
            responseStatus: 502,
          })),
        );
        const failing = serverErrors((await get('/metrics')).body);
        await eventually('two more polls failed', async () =>
          serverErrors((await get('/metrics')).body) >= failing + 2 ? true : undefined,
        );
        writeFileSync(trigger, '');
        await eventually('the death counted', async () =>
          restarts((await get('/metrics')).body) >= 1 ? true : undefined,
        );
        sim.setFault('qstash_logs', null);
        // The restarted worker reads from the start time its predecessor published, not its own.
        const counted = await eventually('the errors counted', async () => {
          const body = (await get('/metrics')).body;
          return errors(body) > 0 ? body : undefined;
        });
        expect(errors(counted)).toBe(5);
      },
      {
        when: trigger,
        qstashSources: ['flow_control', 'qstash_logs'],
        beforeStart: (sim) => sim.setFault('qstash_logs', { kind: 'status', status: 503 }),
      },
    );
    rmSync(dir, { recursive: true, force: true });
  }, 90_000);
});

describe('a poll worker that dies inside a poll begun less than a second before', () => {
  for (const source of ['qstash_logs', 'dlq'] as const) {
    it(`blames the death on that ${source} poll: worker_died twice for two deaths, upstash_up 0`, async () => {
      const dir = mkdtempSync(join(tmpdir(), 'worker-death-'));
      const trigger = join(dir, 'die');
      const UNIT = `source="${source}",account="eu",database_id="",qstash_id="",index_id=""`;
      const died = (body: string) =>
        value(
          body,
          new RegExp(`^upstash_exporter_poll_failures_total\\{${UNIT},reason="worker_died"\\} (\\d+)$`, 'm'),
        );
      const unitUp = (body: string) => value(body, new RegExp(`^upstash_up\\{${UNIT}\\} (\\d+)$`, 'm'));
      const unitPolls = (body: string) =>
        value(body, new RegExp(`^upstash_exporter_polls_total\\{${UNIT}\\} (\\d+)$`, 'm'));
      // The next two requests of the source kill the worker as they arrive (the worker sees the file
      // within 50 ms, long before its next publication a second later); the poll hangs meanwhile.
      let deaths = 0;
      const onRequest = (route: string): void => {
        if (route !== source || deaths >= 2) return;
        deaths++;
        writeFileSync(trigger, '');
      };
      let armed = false;
      await running(
        'throw',
        0,
        async ({ sim, get }) => {
          const first = await eventually('the first polls published', async () => {
            const body = (await get('/metrics')).body;
            return unitUp(body) === 1 ? body : undefined;
          });
          // Every worker from now on can die so (the variables are copied as each is created).
          process.env.POLL_WORKER_DEATH = 'throw';
          process.env.POLL_WORKER_DEATH_WHEN = trigger;
          sim.setFault(source, { kind: 'hang' });
          armed = true;
          const after = await eventually('two deaths counted', async () => {
            const body = (await get('/metrics')).body;
            return restarts(body) >= 2 ? body : undefined;
          });
          expect(deaths).toBe(2);
          expect(died(after)).toBe(2);
          expect(unitUp(after)).toBe(0);
          // Each poll that died was started and counted: failures never outnumber polls.
          expect(unitPolls(after)).toBeGreaterThanOrEqual(unitPolls(first) + 2);
        },
        {
          when: trigger,
          qstashSources: ['flow_control', source],
          onRequest: (route) => {
            if (armed) onRequest(route);
          },
        },
      );
      rmSync(dir, { recursive: true, force: true });
    }, 90_000);
  }
});
