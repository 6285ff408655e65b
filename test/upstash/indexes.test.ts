import { describe, expect, test } from 'vitest';
import {
  DEMO_API_KEY,
  DEMO_EMAIL,
  DEMO_SEARCH_INDEXES,
  DEMO_VECTOR_INDEXES,
  startSimulator,
} from '../../src/demo/simulator.js';
import { UpstashClient } from '../../src/upstash/client.js';
import { fetchIndexStats, parseIndexStats } from '../../src/upstash/index-stats.js';
import { fetchIndexes, parseIndexes } from '../../src/upstash/indexes.js';
import { parseBackups } from '../../src/upstash/redis-backups.js';
import { InvalidResponseError } from '../../src/upstash/errors.js';
import { invalid } from '../helpers/invalid.js';

/** {@link invalid} for the parsers that validate in slices (they return a promise). */
async function rejects(parsing: Promise<unknown>): Promise<InvalidResponseError> {
  const error: unknown = await parsing.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(InvalidResponseError);
  expect((error as InvalidResponseError).reason).toBe('invalid_response');
  return error as InvalidResponseError;
}

const TOKEN = 'QkZGAsWp2-index-token-kept-nowhere';
const READ_ONLY = 'QkZGRk1h-read-only-token-kept-nowhere';

// One entry as the OpenAPI's `VectorIndex` example has it, tokens included.
const VECTOR = {
  customer_id: 'example@upstash.com',
  id: '0639864f-ece6-429c-8118-86a287b0e808',
  name: 'myindex',
  similarity_function: 'COSINE',
  dimension_count: 384,
  embedding_model: 'BGE_SMALL_EN_V1_5',
  endpoint: 'glowing-baboon-15797-us1',
  token: TOKEN,
  read_only_token: READ_ONLY,
  type: 'fixed',
  region: 'us-east-1',
  max_vector_count: 5210000,
  max_daily_updates: 1000000,
  max_daily_queries: 1000000,
  max_monthly_bandwidth: -1,
  max_writes_per_second: 1000,
  max_query_per_second: 1000,
  creation_time: 1753207106,
  index_type: 'DENSE',
  throughput_vector: [{ x: '2025-09-04 14:55:00.000 +0000 UTC', y: 0 }],
};

describe('parseIndexes', () => {
  test('the fields we export, -1 as it is, and no token kept', async () => {
    const listing = await parseIndexes([VECTOR]);
    const [index] = listing.entries;
    expect(listing.rejected).toEqual([]);
    expect(index).toEqual({
      id: VECTOR.id,
      name: 'myindex',
      type: 'fixed',
      region: 'us-east-1',
      similarityFunction: 'COSINE',
      indexType: 'DENSE',
      dimensionCount: '384',
      limits: {
        max_vector_count: 5210000,
        max_daily_queries: 1000000,
        max_daily_updates: 1000000,
        max_monthly_bandwidth: -1,
        max_query_per_second: 1000,
        max_writes_per_second: 1000,
      },
    });
    expect(JSON.stringify(listing)).not.toMatch(/token|QkZG/);
  });

  test('a limit of the wrong type is skipped alone and named; a Search entry has no vector labels', async () => {
    const listing = await parseIndexes([
      { id: 's', name: 'search', token: TOKEN, max_daily_queries: '-1', max_vector_count: null },
    ]);
    const [index] = listing.entries;
    expect(index?.limits).toEqual({});
    expect(listing.rejected).toEqual(['max_daily_queries']);
    expect([index?.similarityFunction, index?.indexType, index?.dimensionCount]).toEqual(['', '', '']);
  });

  test.each([
    ['an object instead of a list', { indexes: [] }, 'top level'],
    ['an entry without id', [{ name: 'x', token: TOKEN }], '[0].id'],
    ['an entry with an empty id', [{ id: '', name: 'x', read_only_token: READ_ONLY }], '[0].id'],
    ['an entry without name', [{ id: 'a', token: TOKEN }], '[0].name'],
    ['a repeated id', [VECTOR, { ...VECTOR, name: 'other' }], 'entry [1] repeats the id'],
  ])('%s is invalid, and the message names where, never a token', async (_, body, where) => {
    const error = await rejects(parseIndexes(body, 'http://x/v2/vector/index'));
    expect(error.message).toContain(where);
    expect(error.message).not.toContain(TOKEN);
    expect(error.message).not.toContain(READ_ONLY);
  });
});

describe('parseIndexStats', () => {
  const NOW = Date.UTC(2025, 9, 23, 17, 40);
  test('numbers as they are; the latest point of each latency series, padding in the future skipped', () => {
    const stats = parseIndexStats(
      {
        pending_index_count: 1,
        current_vector_count: 1000,
        monthly_cost: 0.5,
        query_latency_99: [
          { x: '2025-10-23 17:35:00.000 +0000 UTC', y: 9 },
          { x: '2025-10-23 17:34:00.000 +0000 UTC', y: 7 },
          { x: '2025-10-23 18:34:00.000 +0000 UTC', y: 0 },
          { x: '2025-10-23 17:36:00.000 +0000 UTC', y: null },
        ],
        days: ['Sunday'],
      },
      'stats',
      NOW,
    );
    expect(stats.values).toEqual({
      pending_index_count: 1,
      current_vector_count: 1000,
      monthly_cost: 0.5,
      query_latency_99: 9,
    });
    expect(stats.rejected).toEqual([]);
  });

  test('a field of the wrong type is rejected alone; a body that is no object is invalid', () => {
    const stats = parseIndexStats(
      { storage_usage: '7000', daily_query_count: 3, update_latency_mean: [{ y: 1 }] },
      'stats',
      NOW,
    );
    expect(stats.values).toEqual({ daily_query_count: 3 });
    // In the order they are read (stats-series.ts: series first, then numbers).
    expect(stats.rejected).toEqual(['update_latency_mean', 'storage_usage']);
    expect(invalid(() => parseIndexStats([], 'stats')).message).toContain('top level');
  });
});

describe('parseBackups', () => {
  test('counts per state, the newest completed and failed times; unknown states counted nowhere', async () => {
    const summary = await parseBackups([
      { backup_id: 'a', state: 'completed', creation_time: 100 },
      { backup_id: 'b', state: 'completed', creation_time: 300 },
      { backup_id: 'c', state: 'failed', creation_time: 200 },
      { backup_id: 'd', state: 'pending', creation_time: 400 },
      { backup_id: 'e', state: 'archived', creation_time: 500 },
      { backup_id: 'f', state: 'failed', creation_time: 'yesterday' },
      // Listed after a newer one: the newest is by time, not by place in the list.
      { backup_id: 'g', state: 'completed', creation_time: 250 },
    ]);
    expect(summary).toEqual({
      counts: { pending: 1, completed: 3, failed: 2 },
      lastCompleted: 300,
      lastFailed: 200,
      // The tolerance rule: a creation time of the wrong type is left out alone, and named.
      rejected: ['creation_time'],
    });
  });

  test('none: zeros and no times; a repeated backup_id is invalid', async () => {
    expect(await parseBackups([])).toEqual({
      counts: { pending: 0, completed: 0, failed: 0 },
      lastCompleted: undefined,
      lastFailed: undefined,
      rejected: [],
    });
    const error = await rejects(
      parseBackups([
        { backup_id: 'a', state: 'completed' },
        { backup_id: 'a', state: 'failed' },
      ]),
    );
    expect(error.message).toContain('repeats the backup_id');
  });
});

describe('an index listed with its key fields only', () => {
  test('has empty labels and no limits', async () => {
    expect((await parseIndexes([{ id: 'i', name: 'n' }])).entries).toStrictEqual([
      {
        id: 'i',
        name: 'n',
        type: '',
        region: '',
        similarityFunction: '',
        indexType: '',
        dimensionCount: '',
        limits: {},
      },
    ]);
  });
});

describe('the index listings and stats against the simulator', () => {
  test.each([
    ['vector', DEMO_VECTOR_INDEXES, '/v2/vector/index'],
    ['search', DEMO_SEARCH_INDEXES, '/v2/search'],
  ] as const)(
    "%s: the listing and one index's stats, each at its own path",
    async (product, indexes, path) => {
      const sim = await startSimulator({ frozen: true });
      const client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 1, userAgent: 'test' });
      try {
        const credentials = {
          api: 'management',
          email: DEMO_EMAIL,
          apiKey: { reveal: () => DEMO_API_KEY },
        } as const;
        const target = { baseUrl: sim.url, credentials, product };
        const listed = await fetchIndexes(client, target);
        expect(listed.entries.map((index) => index.id)).toEqual(indexes.map((index) => index.id));
        expect(sim.lastPath(`${product}_indexes`)).toBe(path);
        const [first] = indexes;
        if (first === undefined) throw new Error('the simulator lists no index');
        const stats = await fetchIndexStats(client, { ...target, indexId: first.id });
        expect(Object.keys(stats.values).length).toBeGreaterThan(0);
        expect(sim.lastPath(`${product}_stats`)).toBe(`${path}/${first.id}/stats`);
        sim.setFault(`${product}_stats`, { kind: 'body', body: '[]' });
        const error = await fetchIndexStats(client, { ...target, indexId: first.id }).catch(
          (e: unknown) => e,
        );
        expect((error as Error).message).toContain(`GET ${sim.url}${path}/${first.id}/stats`);
      } finally {
        await client.close();
        await sim.stop();
      }
    },
  );
});
