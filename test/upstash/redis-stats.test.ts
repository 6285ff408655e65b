import { afterEach, describe, expect, test } from 'vitest';
import {
  DEMO_API_KEY,
  DEMO_DATABASES,
  DEMO_EMAIL,
  formatGoTime,
  startSimulator,
} from '../../src/demo/simulator.js';
import type { Simulator } from '../../src/demo/simulator.js';
import { UpstashClient } from '../../src/upstash/client.js';
import { HttpStatusError } from '../../src/upstash/errors.js';
import {
  NUMBER_FIELDS,
  SERIES_FIELDS,
  fetchRedisStats,
  parseRedisStats,
} from '../../src/upstash/redis-stats.js';
import { invalid } from '../helpers/invalid.js';

const T0 = Date.UTC(2025, 7, 31, 15, 12, 0);
const at = (offsetSeconds: number, fraction = ''): string =>
  formatGoTime(T0 + offsetSeconds * 1000, fraction);

// A trimmed but realistic stats body: Go timestamps with varying fraction digits, the newest keyspace
// point first, a null newest throughput point, null Kafka-era series, fields we do not know.
const BODY = {
  connection_count: [
    { x: at(0), y: 10 },
    { x: at(10, '5'), y: 11 },
    { x: at(20, '799480932'), y: 12 },
  ],
  keyspace: [
    { x: at(20, '1'), y: 5003 },
    { x: at(0), y: 5001 },
    { x: at(10), y: 5002 },
  ],
  throughput: [
    { x: at(0), y: 4.5 },
    { x: at(10), y: 5.25 },
    { x: at(20), y: null },
  ],
  produce_throughput: null,
  consume_throughput: null,
  latencymean: [{ x: at(10, '25'), y: 0.412 }],
  read_latency_99: [],
  dailyproduce: null,
  dailybilling: [
    { x: formatGoTime(Date.UTC(2025, 7, 30)), y: 0.21 },
    { x: formatGoTime(Date.UTC(2025, 7, 31)), y: 0.19 },
  ],
  days: ['Saturday', 'Sunday'],
  command_counts: [{ metric_identifier: 'GET', data_points: [{ x: at(0), y: 3 }] }],
  dailybandwidth: 123_456,
  total_monthly_requests: 9_876_543,
  total_monthly_billing: 5.61,
  total_monthly_produce: 0,
  total_monthly_consume: null,
  monitor_count: 0,
};

describe('parseRedisStats', () => {
  test('a realistic body', () => {
    const stats = parseRedisStats(BODY);
    expect(stats.values).toEqual({
      connection_count: 12,
      keyspace: 5003,
      throughput: 5.25,
      latencymean: 0.412,
      dailybilling: 0.19,
      dailybandwidth: 123_456,
      total_monthly_requests: 9_876_543,
      total_monthly_billing: 5.61,
      total_monthly_produce: 0,
    });
    // Newest usable point: connection_count at +20.799480932 s (keyspace's +20.1 s is older).
    expect(stats.sampleTimestampMs).toBeCloseTo(T0 + 20_799.480932, 3);
  });

  test('the latest point is the one with the greatest x, not the last in the array', () => {
    const stats = parseRedisStats({
      hits: [
        { x: at(30), y: 3 },
        { x: at(50), y: 5 },
        { x: at(10), y: 1 },
        { x: at(40), y: 4 },
      ],
    });
    expect(stats.values.hits).toBe(5);
    expect(stats.sampleTimestampMs).toBe(T0 + 50_000);
  });

  test('greatest x is decided by the fraction when the seconds are equal, down to the nanosecond', () => {
    const stats = parseRedisStats({
      read: [
        { x: at(5, '000000002'), y: 2 },
        { x: at(5, '000000003'), y: 3 },
        { x: at(5, '000000001'), y: 1 },
        { x: at(5), y: 0 },
      ],
      write: [
        { x: at(5, '79948093'), y: 1 },
        { x: at(5, '799480931'), y: 2 },
      ],
    });
    expect(stats.values.read).toBe(3);
    expect(stats.values.write).toBe(2);
  });

  test('a later point in another offset wins when it is later in absolute time', () => {
    const stats = parseRedisStats({
      misses: [
        { x: '2025-08-31 17:12:10 +0200 CEST', y: 1 }, // 15:12:10 UTC
        { x: '2025-08-31 15:12:05 +0000 UTC', y: 2 },
      ],
    });
    expect(stats.values.misses).toBe(1);
  });

  test('null y points are skipped, even when newest', () => {
    const stats = parseRedisStats({
      write: [
        { x: at(0), y: 1 },
        { x: at(10), y: null },
      ],
    });
    expect(stats.values.write).toBe(1);
    expect(stats.sampleTimestampMs).toBe(T0);
  });

  test('null, missing, empty and all-null series produce no value and no timestamp', () => {
    const stats = parseRedisStats({
      produce_throughput: null,
      keyspace: [],
      hits: [
        { x: at(0), y: null },
        { x: at(10), y: null },
      ],
    });
    expect(stats.values).toEqual({});
    expect(stats.sampleTimestampMs).toBeUndefined();
    expect(parseRedisStats({})).toEqual({
      values: {},
      commands: new Map(),
      sampleTimestampMs: undefined,
      rejected: [],
    });
  });

  test('a zero is a value, not an absence', () => {
    const stats = parseRedisStats({ hits: [{ x: at(0), y: 0 }], total_monthly_produce: 0 });
    expect(stats.values).toEqual({ hits: 0, total_monthly_produce: 0 });
  });

  // command_counts and total_monthly_bandwidth are known fields now (the
  // first, not a list, is rejected alone; the second exported); unknown fields are still ignored.
  test('fields the exporter does not know are ignored, whatever their shape', () => {
    const stats = parseRedisStats({
      days: ['Monday'],
      command_counts: 'not even a list',
      some_future_series: [{ x: 'not a time', y: 'n/a' }],
      queue_optimized: false,
      total_monthly_bandwidth: 5,
    });
    expect(stats.values).toEqual({ total_monthly_bandwidth: 5 });
    expect(stats.rejected).toEqual(['command_counts']);
  });

  test('every known series field and number field is read', () => {
    const body: Record<string, unknown> = {};
    SERIES_FIELDS.forEach((field, i) => (body[field] = [{ x: at(i), y: i + 0.5 }]));
    NUMBER_FIELDS.forEach((field, i) => (body[field] = 1000 + i));
    const stats = parseRedisStats(body);
    SERIES_FIELDS.forEach((field, i) => expect(stats.values[field]).toBe(i + 0.5));
    NUMBER_FIELDS.forEach((field, i) => expect(stats.values[field]).toBe(1000 + i));
    expect(stats.sampleTimestampMs).toBe(T0 + (SERIES_FIELDS.length - 1) * 1000);
  });

  // These used to fail the whole body as invalid_response; now the field is
  // skipped alone and named in `rejected`, and the other fields still export.
  test.each([
    ['an x that is not a Go time', { hits: [{ x: '2025-08-31T15:12:00Z', y: 1 }] }, 'hits'],
    [
      'an impossible x on a point with a value',
      { hits: [{ x: '2025-02-30 00:00:00 +0000 UTC', y: 1 }] },
      'hits',
    ],
    ['a numeric x', { keyspace: [{ x: 1_756_653_120, y: 1 }] }, 'keyspace'],
    ['a point without x', { keyspace: [{ y: 1 }] }, 'keyspace'],
    ['a y as text', { latencymean: [{ x: at(0), y: '0.4' }] }, 'latencymean'],
    ['a series that is an object', { throughput: { x: at(0), y: 1 } }, 'throughput'],
    ['a series that is a number', { dailyproduce: 0 }, 'dailyproduce'],
    ['a number field as text', { total_monthly_billing: '5.61' }, 'total_monthly_billing'],
    ['a number field as a series', { current_storage: [{ x: at(0), y: 1 }] }, 'current_storage'],
    [
      'one malformed point among good ones',
      {
        hits: [
          { x: at(0), y: 1 },
          { x: at(10), y: 'n/a' },
        ],
      },
      'hits',
    ],
    ['a command that is null', { command_counts: [null] }, 'command_counts'],
    [
      'a command named by the empty string',
      { command_counts: [{ metric_identifier: '', data_points: [] }] },
      'command_counts',
    ],
    [
      'a command without a name',
      { command_counts: [{ data_points: [{ x: at(0), y: 1 }] }] },
      'command_counts',
    ],
    [
      'a command with a malformed point',
      {
        command_counts: [
          { metric_identifier: 'GET', data_points: [{ x: at(0), y: 1 }] },
          { metric_identifier: 'SET', data_points: [{ x: 'yesterday', y: 1 }] },
        ],
      },
      'command_counts',
    ],
    [
      'a command listed twice',
      {
        command_counts: [
          { metric_identifier: 'GET', data_points: [] },
          { metric_identifier: 'GET', data_points: [] },
        ],
      },
      'command_counts',
    ],
  ])('%s → that field alone is rejected, the others still read', (_, body, field) => {
    const stats = parseRedisStats({ ...body, write: [{ x: at(0), y: 2 }], total_monthly_requests: 9 });
    expect(stats.rejected).toEqual([field]);
    expect(stats.values).toEqual({ write: 2, total_monthly_requests: 9 });
    expect(stats.commands.size).toBe(0);
    expect(stats.sampleTimestampMs).toBe(T0);
  });

  test.each([
    ['a list', []],
    ['null', null],
    ['a number', 5],
    ['a string', 'stats'],
  ])('a body that is %s → invalid_response', (_, body) => {
    const error = invalid(() => parseRedisStats(body, 'https://api.example.com/v2/redis/stats/db'));
    expect(error.message).toContain('top level');
    expect(error.message).toContain('https://api.example.com/v2/redis/stats/db');
  });

  test('points more than 5 minutes after our clock are skipped (the padded rest of the month)', () => {
    const now = T0;
    const stats = parseRedisStats(
      {
        dailyrequests: [
          { x: formatGoTime(Date.UTC(2025, 7, 30)), y: 70 },
          { x: at(4 * 60), y: 80 }, // 4 minutes ahead: a clock skew, kept
          { x: formatGoTime(Date.UTC(2025, 8, 1)), y: 0 },
          { x: formatGoTime(Date.UTC(2025, 8, 2)), y: 0 },
        ],
      },
      'stats',
      now,
    );
    expect(stats.values.dailyrequests).toBe(80);
    expect(stats.sampleTimestampMs).toBe(T0 + 4 * 60_000);
    const later = parseRedisStats({ dailyrequests: [{ x: at(6 * 60), y: 1 }] }, 'stats', now);
    expect(later.values).toEqual({});
    expect(later.sampleTimestampMs).toBeUndefined();
  });

  test('command_counts: the latest point of each command; its points count for the sample time', () => {
    const stats = parseRedisStats({
      hits: [{ x: at(0), y: 1 }],
      command_counts: [
        {
          metric_identifier: 'GET',
          data_points: [
            { x: at(30), y: 12 },
            { x: at(10), y: 3 },
          ],
        },
        { metric_identifier: 'SET', data_points: [{ x: at(5), y: null }] },
        { metric_identifier: 'DEL', data_points: null },
        { metric_identifier: 'INCR' },
        { metric_identifier: 'EXISTS', data_points: [{ x: at(20), y: 0 }] },
      ],
    });
    expect([...stats.commands]).toEqual([
      ['GET', 12],
      ['EXISTS', 0],
    ]);
    expect(stats.sampleTimestampMs).toBe(T0 + 30_000);
    expect(stats.rejected).toEqual([]);
  });

  test('latency_99 and the new number fields are read; numbers beyond 2^53 stay floats', () => {
    const stats = parseRedisStats(
      JSON.parse(
        `{"latency_99":[{"x":"${at(0)}","y":4.5}],"daily_net_commands":8024278031528736858,"current_storage":0}`,
      ),
    );
    expect(stats.values).toEqual({
      latency_99: 4.5,
      daily_net_commands: Number('8024278031528736858'),
      current_storage: 0,
    });
  });

  test('the bad value itself is not echoed', () => {
    const stats = parseRedisStats({ hits: [{ x: 'secret-ish-value-123', y: 1 }] });
    expect(JSON.stringify({ ...stats, commands: [...stats.commands] })).not.toContain('secret-ish-value-123');
  });
});

describe('fetchRedisStats against the simulator', () => {
  let sim: Simulator | undefined;
  let client: UpstashClient | undefined;
  afterEach(async () => {
    await client?.close();
    await sim?.stop();
  });

  const basic = `Basic ${Buffer.from(`${DEMO_EMAIL}:${DEMO_API_KEY}`).toString('base64')}`;
  const credentials = {
    api: 'management',
    email: DEMO_EMAIL,
    apiKey: { reveal: () => DEMO_API_KEY },
  } as const;

  test('the default simulator body: unsorted keyspace and a null newest throughput are handled', async () => {
    const now = Date.UTC(2025, 7, 31, 15, 12, 52, 799);
    sim = await startSimulator({ now: () => now });
    client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 1, userAgent: 'test' });
    const stats = await fetchRedisStats(client, {
      baseUrl: sim.url,
      credentials,
      databaseId: DEMO_DATABASES[0]!,
    });
    // The client builds the Basic header from the e-mail and the key.
    expect(sim.lastHeaders('redis_stats')?.authorization).toBe(basic);

    // Read the same body directly to know what the answer must be.
    const raw = (await (
      await fetch(`${sim.url}/v2/redis/stats/${DEMO_DATABASES[0]!}`, { headers: { authorization: basic } })
    ).json()) as Record<string, { x: string; y: number | null }[] | null | number>;
    const keyspace = raw.keyspace as { x: string; y: number }[];
    expect(stats.values.keyspace).toBe(keyspace[0]!.y); // newest is first in the array
    const throughput = raw.throughput as { x: string; y: number | null }[];
    expect(throughput.at(-1)!.y).toBeNull();
    expect(stats.values.throughput).toBe(throughput.at(-2)!.y);
    expect(stats.values.connection_count).toBe((raw.connection_count as { y: number }[]).at(-1)!.y);
    for (const field of [
      'produce_throughput',
      'consume_throughput',
      'dailyproduce',
      'dailyconsume',
    ] as const) {
      expect(stats.values).not.toHaveProperty(field);
    }
    expect(stats.values.total_monthly_requests).toBe(raw.total_monthly_requests);
    expect(stats.values.dailybandwidth).toBe(raw.dailybandwidth);
    // The newest ten-second point is at most 11 s before `now`, and never after it.
    expect(stats.sampleTimestampMs).toBeLessThanOrEqual(now);
    expect(stats.sampleTimestampMs).toBeGreaterThan(now - 11_000);
  });

  test('the database ID is URL-encoded; an unknown ID is not_found', async () => {
    const odd = 'db/with space?&#';
    sim = await startSimulator({ databases: [odd] });
    client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 1, userAgent: 'test' });
    const stats = await fetchRedisStats(client, { baseUrl: sim.url, credentials, databaseId: odd });
    expect(stats.sampleTimestampMs).toBeDefined();
    expect(sim.lastPath('redis_stats')).toBe(`/v2/redis/stats/${encodeURIComponent(odd)}`);

    const error = await fetchRedisStats(client, {
      baseUrl: sim.url,
      credentials,
      databaseId: 'gone',
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).reason).toBe('not_found');
  });
});

describe('found in review', () => {
  test('a point with a null y is skipped even when its x is not a time', () => {
    const stats = parseRedisStats({
      keyspace: [
        { x: 'not a time', y: null },
        { x: '2025-08-31 15:12:52 +0000 UTC', y: 3 },
      ],
    });
    expect(stats.values.keyspace).toBe(3);
  });
});

describe('database IDs that are path segments of their own', () => {
  test('`.` and `..` stay on their own resource instead of climbing the path', async () => {
    const sim = await startSimulator({ databases: ['.', '..'] });
    const client = new UpstashClient({ timeoutMs: 5000, retries: 0, concurrency: 1, userAgent: 'test' });
    const credentials = {
      api: 'management',
      email: DEMO_EMAIL,
      apiKey: { reveal: () => DEMO_API_KEY },
    } as const;
    try {
      for (const [id, path] of [
        ['.', '/v2/redis/stats/%2E'],
        ['..', '/v2/redis/stats/%2E%2E'],
      ] as const) {
        const stats = await fetchRedisStats(client, { baseUrl: sim.url, credentials, databaseId: id });
        expect(stats.sampleTimestampMs).toBeDefined();
        expect(sim.lastPath('redis_stats')).toBe(path);
      }
    } finally {
      await client.close();
      await sim.stop();
    }
  });
});
