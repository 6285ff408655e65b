import { describe, expect, test } from 'vitest';
import { DEMO_ODD_URL_GROUP } from '../../src/demo/simulator.js';
import { simulatorsStoppedAfterEach, urlGroups } from './helpers.js';

const start = simulatorsStoppedAfterEach();

describe('routes', () => {
  test('URL groups: every group has endpoints, some unnamed, timestamps in Unix ms', async () => {
    const now = Date.UTC(2025, 7, 31, 15, 12, 52);
    const sim = await start({ now: () => now });
    const groups = await urlGroups(sim);
    expect(groups.length).toBe(4);
    expect(groups.map((g) => g.name)).toContain(DEMO_ODD_URL_GROUP);
    for (const g of groups) {
      expect(g.endpoints.length).toBeGreaterThan(0);
      expect(g.createdAt).toBeLessThanOrEqual(g.updatedAt);
      expect(g.updatedAt).toBeLessThanOrEqual(now);
      expect(g.createdAt).toBeGreaterThan(now - 500 * 86_400_000);
      for (const e of g.endpoints) expect(e.url).toMatch(/^https:\/\//);
    }
    expect(Math.max(...groups.map((g) => g.endpoints.length))).toBeGreaterThanOrEqual(10);
    expect(groups.flatMap((g) => g.endpoints).some((e) => e.name === undefined)).toBe(true);
  });

  test('URL groups: emptyUrlGroup leaves exactly one group without endpoints', async () => {
    const sim = await start({ emptyUrlGroup: true, urlGroups: 7 });
    const groups = await urlGroups(sim);
    expect(groups.length).toBe(7);
    expect(groups.filter((g) => g.endpoints.length === 0).length).toBe(1);
  });
});
