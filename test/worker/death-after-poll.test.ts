import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { startSimulator } from '../../src/demo/simulator.js';
import { createLogger } from '../../src/logger.js';
import { API_KEY, EMAIL, eventually, httpGet, QSTASH_TOKEN, testConfig } from '../helpers/harness.js';

// A death is blamed on the polls running at it, and only on them (docs/metrics.md, The exporter
// itself): a poll that ended with a 200 just before the worker died, its result not yet published,
// counts no `worker_died` and keeps `upstash_up` 1. The worker is the real one with a death injected
// just after a poll ended (test/helpers/dying-poll-worker.ts, `after-poll`).

const DYING_WORKER = new URL('../helpers/dying-poll-worker.js', import.meta.url);
const FLOW = 'source="flow_control",account="eu",database_id="",qstash_id="",index_id=""';
const FLOW_DATA = /^upstash_qstash_flow_control_keys\{account="eu"\} \d+$/m;

afterEach(() => {
  delete process.env.POLL_WORKER_DEATH;
  delete process.env.POLL_WORKER_DEATH_WHEN;
  delete process.env.POLL_WORKER_DEATH_SOURCE;
});

/** The value of the first series of `body` matching `pattern` (its first group), NaN if none. */
function value(body: string, pattern: RegExp): number {
  return Number(pattern.exec(body)?.[1] ?? NaN);
}

const polls = (body: string) =>
  value(body, new RegExp(`^upstash_exporter_polls_total\\{${FLOW}\\} (\\d+)$`, 'm'));
const died = (body: string) =>
  value(
    body,
    new RegExp(`^upstash_exporter_poll_failures_total\\{${FLOW},reason="worker_died"\\} (\\d+)$`, 'm'),
  );
const up = (body: string) => value(body, new RegExp(`^upstash_up\\{${FLOW}\\} (\\d+)$`, 'm'));
const restarts = (body: string) => value(body, /^upstash_exporter_poll_worker_restarts_total (\d+)$/m);

describe('a poll worker that dies just after a poll ended', () => {
  it('never blames that poll: no worker_died, upstash_up stays 1, its start counted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'death-after-poll-'));
    const trigger = join(dir, 'die');
    const sim = await startSimulator({
      qstashToken: QSTASH_TOKEN,
      email: EMAIL,
      apiKey: API_KEY,
      databases: [],
    });
    const logger = createLogger('info', { write: () => undefined });
    // Once the trigger exists, the worker dies right after the next flow_control poll succeeded
    // (everything it says of that poll said), before its next publication.
    process.env.POLL_WORKER_DEATH = 'after-poll';
    process.env.POLL_WORKER_DEATH_WHEN = trigger;
    process.env.POLL_WORKER_DEATH_SOURCE = 'flow_control';
    const config = testConfig(sim.url, {
      intervalSeconds: 1,
      qstashSources: ['flow_control'],
      logLevel: 'debug',
    });
    const app = createApp(config, { logger, version: 'test', revision: 'unknown', pollWorker: DYING_WORKER });
    try {
      const { port } = await app.start();
      // The restarted worker is a healthy one (a worker copies the environment as it is created).
      delete process.env.POLL_WORKER_DEATH;
      const get = async () => (await httpGet(`http://127.0.0.1:${port}/metrics`)).body;
      const before = await eventually('the first polls published', async () => {
        const body = await get();
        return FLOW_DATA.test(body) && up(body) === 1 ? body : undefined;
      });
      writeFileSync(trigger, '');
      const after = await eventually('the death counted', async () => {
        const body = await get();
        return restarts(body) >= 1 ? body : undefined;
      });
      expect(died(after)).toBe(0);
      expect(up(after)).toBe(1);
      // The poll that ended was started and is counted, though no publication said it.
      expect(polls(after)).toBeGreaterThan(polls(before));
    } finally {
      await app.stop();
      await sim.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
