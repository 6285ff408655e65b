import { describe, expect, test } from 'vitest';
import { DEMO_DATABASES, DEMO_ODD_FLOW_CONTROL_KEY, DEMO_ODD_URL_GROUP } from '../../src/demo/simulator.js';
import type { Simulator } from '../../src/demo/simulator.js';
import {
  simulatorsStoppedAfterEach,
  bearer,
  basic,
  statsPath,
  flowControl,
  urlGroups,
  stats,
  goTimeMs,
  latest,
} from './helpers.js';
import type { Point } from './helpers.js';

const start = simulatorsStoppedAfterEach();

describe('routes', () => {
  test('odd names hold a quote, a backslash, a newline and non-ASCII', () => {
    for (const name of [DEMO_ODD_FLOW_CONTROL_KEY, DEMO_ODD_URL_GROUP]) {
      expect(name).toMatch(/"/);
      expect(name).toMatch(/\\/);
      expect(name).toMatch(/\n/);
      expect(/[^ -~\n]/.test(name)).toBe(true); // something outside printable ASCII
    }
  });
});

describe('data', () => {
  test('frozen: byte-identical bodies across calls and instances with the same seed', async () => {
    let clock = Date.UTC(2025, 0, 1);
    const now = (): number => (clock += 7_000);
    const a = await start({ frozen: true, seed: 7, now });
    const b = await start({ frozen: true, seed: 7, now: () => Date.UTC(2025, 0, 1) + 7_000 });
    const c = await start({ frozen: true, seed: 8, now: () => Date.UTC(2025, 0, 1) + 7_000 });
    const text = async (sim: Simulator, path: string, headers: Record<string, string>): Promise<string> =>
      (await fetch(sim.url + path, { headers })).text();
    for (const [path, headers] of [
      ['/v2/flowControl/', bearer()],
      ['/v2/topics', bearer()],
      [statsPath(DEMO_DATABASES[1]!), basic()],
    ] as const) {
      const first = await text(a, path, headers);
      expect(await text(a, path, headers)).toBe(first);
      expect(await text(b, path, headers)).toBe(first);
      expect(await text(c, path, headers)).not.toBe(first);
    }
  });

  test('moving data: timestamps follow the clock, keyspace grows, wait lists change', async () => {
    let clock = Date.UTC(2025, 7, 31, 12);
    const sim = await start({ now: () => clock });
    const before = await stats(sim);
    const waitsBefore: number[] = [];
    const waitsAfter: number[] = [];
    for (let i = 0; i < 10; i++) {
      waitsBefore.push(...(await flowControl(sim)).map((e) => e.waitListSize));
      clock += 60_000;
    }
    clock += 3_600_000;
    const after = await stats(sim);
    waitsAfter.push(...(await flowControl(sim)).map((e) => e.waitListSize));
    const newest = (body: Record<string, unknown>): Point => latest(body.keyspace as Point[]);
    expect(goTimeMs(newest(after).x) - goTimeMs(newest(before).x)).toBeGreaterThan(4_000_000);
    expect(newest(after).y!).toBeGreaterThan(newest(before).y!);
    expect(new Set(waitsBefore).size).toBeGreaterThan(3);
    expect(waitsBefore).toContain(0);
    expect(waitsAfter).not.toEqual(waitsBefore.slice(0, waitsAfter.length));
  });

  test('churn: keys and groups appear and vanish over time', async () => {
    let clock = Date.UTC(2025, 7, 31);
    const sim = await start({ churn: true, flowControlKeys: 40, urlGroups: 40, now: () => clock });
    const keys1 = new Set((await flowControl(sim)).map((e) => e.flowControlKey));
    const groups1 = new Set((await urlGroups(sim)).map((g) => g.name));
    clock += 120_000;
    const keys2 = new Set((await flowControl(sim)).map((e) => e.flowControlKey));
    const groups2 = new Set((await urlGroups(sim)).map((g) => g.name));
    expect([...keys1].some((k) => !keys2.has(k))).toBe(true);
    expect([...keys2].some((k) => !keys1.has(k))).toBe(true);
    expect([...groups1].some((g) => !groups2.has(g))).toBe(true);
    expect([...groups2].some((g) => !groups1.has(g))).toBe(true);
  });
});
