import { describe, expect, test } from 'vitest';
import { DEMO_ODD_FLOW_CONTROL_KEY } from '../../src/demo/simulator.js';
import { simulatorsStoppedAfterEach, bearer, getJson, flowControl, urlGroups } from './helpers.js';
import type { FlowEntry } from './helpers.js';

const start = simulatorsStoppedAfterEach();

describe('routes', () => {
  test('flow control: documented object shape, with and without trailing slash, odd key included', async () => {
    const sim = await start();
    const entries = await flowControl(sim);
    expect(entries.length).toBe(6);
    for (const e of entries) {
      expect(typeof e.flowControlKey).toBe('string');
      expect(Number.isInteger(e.waitListSize)).toBe(true);
      expect(e.waitListSize).toBeGreaterThanOrEqual(0);
      expect(e.waitListSize).toBeLessThanOrEqual(50);
      expect(e).toHaveProperty('parallelismMax');
    }
    expect(entries.map((e) => e.flowControlKey)).toContain(DEMO_ODD_FLOW_CONTROL_KEY);
    const noSlash = await getJson<{ flowControls: unknown[] }>(sim, '/v2/flowControl', bearer());
    expect(noSlash.flowControls.length).toBe(6);
    expect(sim.requests('flow_control')).toBe(2);
  });

  test('flow control: bare array shape and a large key count on request', async () => {
    const sim = await start({ flowControlShape: 'array', flowControlKeys: 10_000 });
    const entries = await getJson<FlowEntry[]>(sim, '/v2/flowControl/', bearer());
    expect(Array.isArray(entries)).toBe(true);
    expect(new Set(entries.map((e) => e.flowControlKey)).size).toBe(10_000);
  });
});

describe('data', () => {
  test('overrides and a steadily growing wait list', async () => {
    let clock = Date.UTC(2025, 7, 31);
    const sim = await start({ now: () => clock, frozen: false });
    sim.setFlowControl([{ flowControlKey: 'a', waitListSize: 3 }]);
    sim.setUrlGroups([{ name: 'g', createdAt: 1, updatedAt: 2, endpoints: [] }]);
    expect(await flowControl(sim)).toEqual([{ flowControlKey: 'a', waitListSize: 3 }]);
    expect(await urlGroups(sim)).toEqual([{ name: 'g', createdAt: 1, updatedAt: 2, endpoints: [] }]);

    sim.setWaitListGrowth('a', 10);
    sim.setWaitListGrowth('new', 60);
    clock += 5 * 60_000;
    const grown = await flowControl(sim);
    expect(grown).toEqual([
      { flowControlKey: 'a', waitListSize: 53 },
      { flowControlKey: 'new', waitListSize: 300 },
    ]);
    sim.setWaitListGrowth('new', null);
    sim.setFlowControl(null);
    const keys = (await flowControl(sim)).map((e) => e.flowControlKey);
    expect(keys).toContain(DEMO_ODD_FLOW_CONTROL_KEY);
    expect(keys).toContain('a');
    expect(keys).not.toContain('new');
  });

  test('frozen bodies are regenerated after a test changes the data', async () => {
    const sim = await start({ frozen: true });
    const before = await flowControl(sim);
    sim.setFlowControl([{ flowControlKey: 'only', waitListSize: 1 }]);
    const after = await flowControl(sim);
    expect(after).not.toEqual(before);
    expect(after).toEqual([{ flowControlKey: 'only', waitListSize: 1 }]);
  });
});
