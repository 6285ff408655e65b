import { describe, expect, test } from 'vitest';
import { DEMO_GLOBAL_PARALLELISM_MAX, DEMO_QSTASH_TOKEN, startSimulator } from '../../src/demo/simulator.js';
import { UpstashClient } from '../../src/upstash/client.js';
import { fetchGlobalParallelism, parseGlobalParallelism } from '../../src/upstash/global-parallelism.js';
import { invalid } from '../helpers/invalid.js';

describe('parseGlobalParallelism', () => {
  test('the documented body', () => {
    expect(parseGlobalParallelism(JSON.parse('{"parallelismMax": 100, "parallelismCount": 37}'))).toEqual({
      max: 100,
      inUse: 37,
    });
  });

  test('a missing count means 0 running (Upstash omits zeros); a missing max stays absent', () => {
    expect(parseGlobalParallelism({ parallelismMax: 10 })).toEqual({ max: 10, inUse: 0 });
    expect(parseGlobalParallelism({})).toEqual({ inUse: 0 });
  });

  test.each([
    ['an array', [], 'top level'],
    ['null', null, 'top level'],
    ['a string count', { parallelismMax: 1, parallelismCount: '3' }, 'parallelismCount'],
  ])('%s → invalid_response', (_, body, where) => {
    expect(invalid(() => parseGlobalParallelism(body)).message).toContain(where);
  });
});

describe('fetchGlobalParallelism against the simulator', () => {
  test('asks its path with the QStash token, and names the request when the body is wrong', async () => {
    const sim = await startSimulator({ frozen: true });
    const client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 1, userAgent: 'test' });
    try {
      const target = {
        baseUrl: sim.url,
        credentials: { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } },
      } as const;
      expect((await fetchGlobalParallelism(client, target)).max).toBe(DEMO_GLOBAL_PARALLELISM_MAX);
      expect(sim.lastPath('global_parallelism')).toBe('/v2/globalParallelism');
      sim.setFault('global_parallelism', { kind: 'body', body: '[]' });
      const error = await fetchGlobalParallelism(client, target).catch((e: unknown) => e);
      expect((error as Error).message).toContain(`GET ${sim.url}/v2/globalParallelism`);
    } finally {
      await client.close();
      await sim.stop();
    }
  });
});
