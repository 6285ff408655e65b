import { describe, expect, test } from 'vitest';
import { simulatorsStoppedAfterEach, basic, statsPath, stats, GO_TIME, goTimeMs, latest } from './helpers.js';
import type { Point } from './helpers.js';

const start = simulatorsStoppedAfterEach();

describe('routes', () => {
  test('stats: real field set, Go timestamps, an unsorted series, a null point, plausible values', async () => {
    const sim = await start({ now: () => Date.UTC(2025, 7, 31, 15, 12, 52, 799) });
    const body = await stats(sim);
    const seriesFields = [
      'connection_count',
      'keyspace',
      'throughput',
      'diskusage',
      'latencymean',
      'read_latency_mean',
      'read_latency_99',
      'write_latency_mean',
      'write_latency_99',
      'hits',
      'misses',
      'read',
      'write',
      'dailyrequests',
      'dailybilling',
      'bandwidths',
    ];
    for (const f of ['produce_throughput', 'consume_throughput', 'dailyproduce', 'dailyconsume']) {
      expect(body[f]).toBeNull();
    }
    for (const f of [
      'dailybandwidth',
      'total_monthly_requests',
      'total_monthly_billing',
      'total_monthly_bandwidth',
    ]) {
      expect(typeof body[f]).toBe('number');
    }
    expect(body).toHaveProperty('command_counts');
    expect(body.days).toHaveLength(7);
    expect((body.days as string[]).at(-1)).toBe('Sunday'); // 2025-08-31 was a Sunday

    const series = (f: string): Point[] => body[f] as Point[];
    const digits = new Set<number>();
    let nulls = 0;
    let unsorted = 0;
    for (const f of seriesFields) {
      const points = series(f);
      expect(points.length).toBeGreaterThan(0);
      for (const p of points) {
        const m = GO_TIME.exec(p.x);
        expect(m, p.x).not.toBeNull();
        digits.add(m?.[3]?.length ?? 0);
        if (p.y === null) nulls++;
      }
      const times = points.map((p) => goTimeMs(p.x));
      if (times.some((t, i) => i > 0 && t <= times[i - 1]!)) unsorted++;
    }
    expect(series('latencymean')).toHaveLength(60);
    expect([...digits].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(nulls).toBe(1);
    expect(unsorted).toBeGreaterThanOrEqual(1);
    // The newest keyspace point is not the last one in the array.
    expect(latest(series('keyspace'))).not.toBe(series('keyspace').at(-1));
    expect(goTimeMs(latest(series('latencymean')).x)).toBeLessThanOrEqual(
      Date.UTC(2025, 7, 31, 15, 12, 52, 799),
    );

    const y = (f: string): number => latest(series(f)).y!;
    expect(y('latencymean')).toBeGreaterThan(0.1);
    expect(y('latencymean')).toBeLessThan(2.5);
    expect(y('read_latency_99')).toBeGreaterThanOrEqual(1);
    expect(y('write_latency_99')).toBeLessThanOrEqual(8);
    expect(y('hits') / (y('hits') + y('misses'))).toBeGreaterThan(0.85);
    expect(y('dailybilling')).toBeGreaterThan(0.05);
    expect(y('dailybilling')).toBeLessThan(2);
    expect(body.total_monthly_billing).toBeLessThan(20);
  });

  test('stats: the database ID is URL-decoded; unknown IDs answer 404', async () => {
    const sim = await start({ databases: ['db/with space?'] });
    expect(await stats(sim, 'db/with space?')).toHaveProperty('keyspace');
    expect(sim.lastPath('redis_stats')).toBe('/v2/redis/stats/db%2Fwith%20space%3F');
    const res = await fetch(sim.url + statsPath('nope'), { headers: basic() });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'database not found' });
    sim.setDatabases(['nope']);
    expect((await fetch(sim.url + statsPath('nope'), { headers: basic() })).status).toBe(200);
  });
});
