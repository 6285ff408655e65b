import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { startSimulator } from '../../src/demo/simulator.js';
import { createLogger } from '../../src/logger.js';
import { API_KEY, EMAIL, eventually, httpGet, QSTASH_TOKEN, testConfig } from '../helpers/harness.js';

// Polling runs in a worker thread. A worker that dies is an error that is logged and
// restarts the polling, never a silent stall; /metrics keeps answering meanwhile. The worker is the
// real one with a death injected (test/helpers/dying-poll-worker.ts).

const DYING_WORKER = new URL('../helpers/dying-poll-worker.js', import.meta.url);

afterEach(() => {
  delete process.env.POLL_WORKER_DEATH;
  delete process.env.POLL_WORKER_DEATH_AFTER_MS;
});

const DIED = 'the poll worker died; restarting it, and polling with it';

/**
 * A simulator with one database, and an exporter polling it every second through the dying worker,
 * with POLL_WORKER_DEATH set to `death` while it is created; its log lines are kept.
 */
async function dyingExporter(death: string) {
  const sim = await startSimulator({
    qstashToken: QSTASH_TOKEN,
    email: EMAIL,
    apiKey: API_KEY,
    databases: ['db-a'],
  });
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger('info', {
    write: (line: string) => {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    },
  });
  process.env.POLL_WORKER_DEATH = death;
  const app = createApp(testConfig(sim.url, { intervalSeconds: 1, databases: ['db-a'], logLevel: 'info' }), {
    logger,
    version: 'test',
    revision: 'unknown',
    pollWorker: DYING_WORKER,
  });
  return { sim, logs, app };
}

async function dies(how: 'exit' | 'throw'): Promise<{ logs: Record<string, unknown>[]; restarted: boolean }> {
  process.env.POLL_WORKER_DEATH_AFTER_MS = '2000';
  const { sim, logs, app } = await dyingExporter(how);
  try {
    const { port } = await app.start();
    const get = async (path: string) => httpGet(`http://127.0.0.1:${port}${path}`);
    // The worker polls and publishes; this one worker is the only one that will die.
    await eventually('the first polls published', async () =>
      (await get('/metrics')).body.includes('upstash_qstash_flow_control_keys{') ? true : undefined,
    );
    delete process.env.POLL_WORKER_DEATH;
    const statuses: number[] = [];
    const death = await eventually(
      'the death logged',
      async () => {
        statuses.push((await get('/metrics')).status);
        return logs.find((line) => line.msg === DIED);
      },
      15_000,
      50,
    );
    const polledAtDeath = sim.requests('flow_control');
    // Polling resumes in the new worker, and /metrics answered throughout.
    await eventually('polls after the restart', async () => {
      statuses.push((await get('/metrics')).status);
      return sim.requests('flow_control') >= polledAtDeath + 2 ? true : undefined;
    });
    // The new worker's polls are published: data and health series again.
    await eventually('the new worker publishes its polls', async () => {
      const reply = await get('/metrics');
      statuses.push(reply.status);
      const up =
        /^upstash_up\{source="redis_stats",account="main",database_id="db-a",qstash_id="",index_id=""\} 1$/m;
      return up.test(reply.body) && reply.body.includes('upstash_redis_connections{') ? true : undefined;
    });
    expect((await get('/readyz')).status).toBe(200);
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(death.level).toBe('error');
    return { logs: [death], restarted: true };
  } finally {
    await app.stop();
    await sim.stop();
  }
}

describe('a poll worker that dies', () => {
  it('before its first publication: the exporter starts once the restarted worker has published', async () => {
    const { sim, logs, app } = await dyingExporter('exit-at-start');
    try {
      // The first worker is created with the death in its environment; the restarted one is not.
      const starting = app.start();
      delete process.env.POLL_WORKER_DEATH;
      const { port } = await starting;
      expect(logs.find((line) => line.msg === DIED)).toMatchObject({
        level: 'error',
        code: 7,
      });
      // Started means published: the first scrape shows every unit's health series, declared at zero
      // before its first poll (upstash_up comes with that poll).
      const body = (await httpGet(`http://127.0.0.1:${port}/metrics`)).body;
      expect(body).toMatch(
        /^upstash_exporter_polls_total\{source="redis_stats",account="main",database_id="db-a",qstash_id="",index_id=""\} \d+$/m,
      );
    } finally {
      await app.stop();
      await sim.stop();
    }
  }, 40_000);

  it('exits (process.exit inside it): logged as an error with its code, restarted, polling resumes', async () => {
    const { logs } = await dies('exit');
    expect(logs[0]).toMatchObject({ code: 7 });
  }, 40_000);

  it('throws an uncaught error: logged with the error, restarted, polling resumes', async () => {
    const { logs } = await dies('throw');
    expect(JSON.stringify(logs[0]?.err)).toContain('injected fault: the poll worker dies');
  }, 40_000);
});
