import { describe, expect, test } from 'vitest';
import { ConfigError, problemLines } from '../../src/config/errors.js';
import type { Config } from '../../src/config/types.js';
import { find } from '../helpers/exposition-parser.js';
import {
  DATABASES,
  eventually,
  httpCall,
  leakedSecret,
  useHarness,
  type Harness,
  type Reply,
} from '../helpers/harness.js';

// docs/operations.md, Reloading the configuration: POST /-/reload behind --web.enable-lifecycle, what SIGHUP
// does (the app's one reload queue), answered once the reload is applied or refused. The built program is
// tested in test/e2e/conventions.test.ts; here the queue and the answers, with the loader in the test's
// hands.

const start = useHarness();

async function call(h: Harness, method: string, path: string): Promise<Reply> {
  return httpCall(`${h.base}${path}`, method);
}

/** The configuration without db-beta: a reload that changes the source set. */
const withoutBeta = (config: Config): Config => {
  const [management] = config.management;
  return { ...config, management: [{ ...management!, databases: [DATABASES[0]!] }] };
};

describe('POST /-/reload', () => {
  test('without --web.enable-lifecycle: 403 naming the flag, and nothing is reloaded', async () => {
    let loads = 0;
    const h = await start({
      intervalSeconds: 30,
      loadConfig: () => {
        loads++;
        return h.config;
      },
    });
    for (const method of ['POST', 'PUT']) {
      const reply = await call(h, method, '/-/reload');
      expect(reply.status, method).toBe(403);
      expect(reply.body, method).toContain('--web.enable-lifecycle');
    }
    expect(loads).toBe(0);
  });

  test('GET, HEAD and other methods get 405 with Allow: POST, PUT, enabled or not', async () => {
    const h = await start({ intervalSeconds: 30, webEnableLifecycle: true });
    for (const method of ['GET', 'HEAD', 'DELETE', 'PATCH', 'OPTIONS']) {
      const reply = await call(h, method, '/-/reload');
      expect(reply.status, method).toBe(405);
      expect(reply.headers.allow, method).toBe('POST, PUT');
    }
  });

  test('answers 200 once the new configuration is applied: the next scrape and page show it', async () => {
    const h = await start({
      intervalSeconds: 30,
      webEnableLifecycle: true,
      loadConfig: () => withoutBeta(h.config),
    });
    await eventually('db-beta polled', async () => {
      const { samples } = await h.scrape();
      return find(samples, 'upstash_up', { database_id: 'db-beta' }).length > 0 ? true : undefined;
    });
    expect((await h.get('/')).body).toContain('db-beta');
    const reply = await call(h, 'POST', '/-/reload');
    expect(reply.status).toBe(200);
    expect(reply.body).toBe('configuration reloaded\n');
    // No waiting: the answer came after the reload.
    const { samples } = await h.scrape();
    expect(find(samples, 'upstash_up', { database_id: 'db-beta' })).toEqual([]);
    expect(find(samples, 'upstash_up', { database_id: 'db-alpha' }).length).toBeGreaterThan(0);
    expect((await h.get('/')).body).not.toContain('db-beta');
    expect((await call(h, 'PUT', '/-/reload')).status).toBe(200);
  });

  test('an invalid configuration: 400 with the problems as stderr shows them; the running one is kept', async () => {
    const problems = [
      { path: 'qstash[0].token', message: 'must not contain whitespace or control characters' },
      { path: 'metrics.deny[0]', message: 'is not a valid regular expression' },
    ];
    const h = await start({
      intervalSeconds: 30,
      webEnableLifecycle: true,
      loadConfig: () => {
        throw new ConfigError(problems);
      },
    });
    await eventually('db-beta polled', async () => {
      const { samples } = await h.scrape();
      return find(samples, 'upstash_up', { database_id: 'db-beta' }).length > 0 ? true : undefined;
    });
    const reply = await call(h, 'POST', '/-/reload');
    expect(reply.status).toBe(400);
    expect(reply.body).toBe(problemLines(problems));
    expect(reply.body).toBe(
      'upstash-exporter: config: qstash[0].token: must not contain whitespace or control characters\n' +
        'upstash-exporter: config: metrics.deny[0]: is not a valid regular expression\n',
    );
    const { samples } = await h.scrape();
    expect(find(samples, 'upstash_up', { database_id: 'db-beta' }).length).toBeGreaterThan(0);
    expect(h.logs.some((line) => line.includes('configuration invalid; keeping the running one'))).toBe(true);
    expect(leakedSecret(`${reply.body}${h.logs.join('')}`)).toBeUndefined();
  });
});

describe('the one reload queue', () => {
  test('requests while a reload runs share one pending reload: two loads for a hundred and one asks', async () => {
    const h = await start({ intervalSeconds: 30 });
    let loads = 0;
    const during: Promise<unknown>[] = [];
    const first = h.app.reload(() => {
      loads++;
      // A hundred asks while this reload runs: the first waits, the others join it.
      for (let i = 0; i < 100; i++) {
        during.push(
          h.app.reload(() => {
            loads++;
            return withoutBeta(h.config);
          }),
        );
      }
      return h.config;
    });
    expect(await first).toEqual({ result: 'applied' });
    const outcomes = await Promise.all(during);
    expect(outcomes).toHaveLength(100);
    for (const outcome of outcomes) expect(outcome).toEqual({ result: 'applied' });
    expect(loads).toBe(2);
    // The shared reload applied the latest configuration asked for.
    expect((await h.get('/')).body).not.toContain('db-beta');
  });

  test('after stop, a reload reads nothing', async () => {
    const h = await start({ intervalSeconds: 30 });
    let loads = 0;
    await h.stop();
    const outcome = await h.app.reload(() => {
      loads++;
      return h.config;
    });
    expect(outcome).toEqual({ result: 'stopping' });
    expect(loads).toBe(0);
  });
});
