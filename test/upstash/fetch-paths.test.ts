import { afterEach, describe, expect, test } from 'vitest';
import {
  DEMO_API_KEY,
  DEMO_BACKED_UP_DATABASE,
  DEMO_EMAIL,
  DEMO_QSTASH_INSTANCES,
  DEMO_QSTASH_TOKEN,
  startSimulator,
  type Simulator,
} from '../../src/demo/simulator.js';
import type { Route } from '../../src/demo/routes.js';
import { UpstashClient, type Target } from '../../src/upstash/client.js';
import { fetchQstashStats } from '../../src/upstash/qstash-stats.js';
import { fetchQstashUsers } from '../../src/upstash/qstash-users.js';
import { fetchBackups } from '../../src/upstash/redis-backups.js';
import { fetchSchedules } from '../../src/upstash/schedules.js';

// Each fetch asks the path Upstash documents (the simulator serves the OpenAPI's paths), with the
// credentials of its API, and names that request when the body is wrong.

const MANAGEMENT = { api: 'management', email: DEMO_EMAIL, apiKey: { reveal: () => DEMO_API_KEY } } as const;
const QSTASH = { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } } as const;
const INSTANCE = DEMO_QSTASH_INSTANCES[0]?.id ?? '';

interface FetchCase {
  readonly route: Route;
  readonly path: string;
  /** A body of the wrong shape for this endpoint. */
  readonly wrong: string;
  readonly fetch: (client: UpstashClient, baseUrl: string) => Promise<unknown>;
}

const CASES: Record<string, FetchCase> = {
  qstash_users: {
    route: 'qstash_users',
    path: '/v2/qstash/users',
    wrong: '{}',
    fetch: (client, baseUrl) => fetchQstashUsers(client, { baseUrl, credentials: MANAGEMENT }),
  },
  qstash_stats: {
    route: 'qstash_stats',
    path: `/v2/qstash/stats/${INSTANCE}`,
    wrong: '[]',
    fetch: (client, baseUrl) =>
      fetchQstashStats(client, { baseUrl, credentials: MANAGEMENT, instanceId: INSTANCE }),
  },
  redis_backups: {
    route: 'redis_backups',
    path: `/v2/redis/list-backup/${DEMO_BACKED_UP_DATABASE}`,
    wrong: '{}',
    fetch: (client, baseUrl) =>
      fetchBackups(client, { baseUrl, credentials: MANAGEMENT, databaseId: DEMO_BACKED_UP_DATABASE }),
  },
  schedules: {
    route: 'schedules',
    path: '/v2/schedules',
    wrong: '{}',
    fetch: (client, baseUrl) => fetchSchedules(client, { baseUrl, credentials: QSTASH } satisfies Target),
  },
};

describe.each(Object.entries(CASES))('%s', (_, c) => {
  let sim: Simulator | undefined;
  let client: UpstashClient | undefined;
  afterEach(async () => {
    await client?.close();
    await sim?.stop();
  });

  test('asks its path, and names the request when the body is wrong', async () => {
    sim = await startSimulator({ frozen: true });
    client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 1, userAgent: 'test' });
    await c.fetch(client, sim.url);
    expect(sim.lastPath(c.route)).toBe(c.path);
    sim.setFault(c.route, { kind: 'body', body: c.wrong });
    const error = await c.fetch(client, sim.url).catch((e: unknown) => e);
    expect((error as Error).message).toContain(`GET ${sim.url}${c.path}`);
  });
});
