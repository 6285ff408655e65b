import { afterEach, describe, expect, test } from 'vitest';
import { DEMO_ODD_URL_GROUP, DEMO_QSTASH_TOKEN, startSimulator } from '../../src/demo/simulator.js';
import type { Simulator } from '../../src/demo/simulator.js';
import { UpstashClient } from '../../src/upstash/client.js';
import { fetchUrlGroups, parseUrlGroups } from '../../src/upstash/url-groups.js';
import { invalidAsync } from '../helpers/invalid.js';

// As QStash sends it: Unix-millisecond timestamps, endpoints with and without a name.
const BODY = `[
  {
    "name": "orders",
    "createdAt": 1717000000123,
    "updatedAt": 1756653172799,
    "endpoints": [
      {"name": "orders-0", "url": "https://api.example.com/qstash/orders/0"},
      {"url": "https://worker.example.net/qstash/orders/1"},
      {"name": "orders-2", "url": "https://hooks.example.org/qstash/orders/2", "extra": 1}
    ]
  },
  {"name": "webhooks/stripe", "createdAt": 1700000000000, "updatedAt": 1700000000000, "endpoints": []}
]`;

describe('parseUrlGroups', () => {
  test('a realistic body: names, ms timestamps kept as ms, endpoint counts', async () => {
    expect((await parseUrlGroups(JSON.parse(BODY))).entries).toEqual([
      { name: 'orders', createdAt: 1_717_000_000_123, updatedAt: 1_756_653_172_799, endpointCount: 3 },
      {
        name: 'webhooks/stripe',
        createdAt: 1_700_000_000_000,
        updatedAt: 1_700_000_000_000,
        endpointCount: 0,
      },
    ]);
  });

  test('an endpoint without a name is fine; an empty list is fine', async () => {
    expect(
      (await parseUrlGroups([{ name: 'g', createdAt: 1, updatedAt: 2, endpoints: [{ url: 'https://x' }] }]))
        .entries,
    ).toEqual([{ name: 'g', createdAt: 1, updatedAt: 2, endpointCount: 1 }]);
    expect(await parseUrlGroups([])).toEqual({ entries: [], rejected: [] });
  });

  test('unknown fields on a group are ignored', async () => {
    const { entries: parsed } = await parseUrlGroups([
      { name: 'g', createdAt: 1, updatedAt: 2, endpoints: [], owner: 'x' },
    ]);
    expect(Object.keys(parsed[0]!).sort()).toEqual(['createdAt', 'endpointCount', 'name', 'updatedAt']);
  });

  test.each([
    ['an object instead of a list', { topics: [] }, 'top level'],
    ['a group without a name', [{ createdAt: 1, updatedAt: 2, endpoints: [] }], 'name'],
    ['an empty name', [{ name: '', createdAt: 1, updatedAt: 2, endpoints: [] }], 'name'],
    [
      'the same name twice',
      [
        { name: 'g', createdAt: 1, updatedAt: 2, endpoints: [] },
        { name: 'g', createdAt: 3, updatedAt: 4, endpoints: [] },
      ],
      'name',
    ],
  ])('%s → invalid_response naming where', async (_, body, where) => {
    expect((await invalidAsync(() => parseUrlGroups(body))).message).toContain(where);
  });

  // Only the key field is all-or-nothing (tested for every listing in tolerance.test.ts).
  test.each([
    ['a timestamp as text', { createdAt: '2025-01-01' }, 'createdAt', { updatedAt: 2, endpointCount: 0 }],
    ['an endpoint without url', { endpoints: [{ name: 'e' }] }, 'endpoints', { createdAt: 1, updatedAt: 2 }],
  ])('%s: the field is left out alone and named, the group kept', async (_, bad, field, rest) => {
    const group = { name: 'g', createdAt: 1, updatedAt: 2, endpoints: [], ...bad };
    expect(await parseUrlGroups([group])).toEqual({ entries: [{ name: 'g', ...rest }], rejected: [field] });
  });

  test('missing endpoints are none (Upstash omits empty arrays); missing times are absent', async () => {
    expect((await parseUrlGroups([{ name: 'g' }])).entries).toEqual([{ name: 'g', endpointCount: 0 }]);
  });
});

describe('fetchUrlGroups against the simulator', () => {
  let sim: Simulator | undefined;
  let client: UpstashClient | undefined;
  afterEach(async () => {
    await client?.close();
    await sim?.stop();
  });

  test('the generated groups, including an empty one and unnamed endpoints', async () => {
    const now = Date.UTC(2025, 7, 31, 15, 12, 52);
    sim = await startSimulator({ now: () => now, emptyUrlGroup: true, urlGroups: 5 });
    client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 1, userAgent: 'test' });
    const { entries: groups } = await fetchUrlGroups(client, {
      baseUrl: sim.url,
      credentials: { api: 'qstash', token: { reveal: () => DEMO_QSTASH_TOKEN } },
    });
    expect(groups).toHaveLength(5);
    expect(groups.map((g) => g.name)).toContain(DEMO_ODD_URL_GROUP);
    expect(groups[0]!.endpointCount).toBe(12);
    expect(groups.at(-1)!.endpointCount).toBe(0);
    for (const g of groups) {
      // Milliseconds: within the last two years of `now`, not seconds since 1970.
      expect(g.createdAt).toBeGreaterThan(now - 2 * 365 * 86_400_000);
      expect(g.updatedAt).toBeLessThanOrEqual(now);
    }
    expect(sim.lastPath('url_groups')).toBe('/v2/topics');
  });
});
